#include "tls_front.h"

#include <Poco/Exception.h>
#include <Poco/Net/SecureStreamSocket.h>
#include <openssl/ssl.h>

#include <chrono>

#include "buffered_socket.h"
#include "tunnel_relay.h"

namespace fake_proxy {
namespace {

using namespace std::chrono_literals;
constexpr auto kHandshakeTimeout = 10s;
constexpr auto kOriginConnectTimeout = 5s;

}  // namespace

Poco::Net::Context::Ptr makeServerContext(const std::string& certFile, const std::string& keyFile) {
  Poco::Net::Context::Ptr context =
      new Poco::Net::Context(Poco::Net::Context::TLS_SERVER_USE, keyFile, certFile, "",
                             Poco::Net::Context::VERIFY_NONE, 9, false, "ALL:!ADH:!LOW:!EXP:!MD5:@STRENGTH");
  context->requireMinimumProtocol(Poco::Net::Context::PROTO_TLSV1_2);
  // A certificate and key that do not belong together would only fail at
  // the first handshake; say so at start-up instead.
  if (SSL_CTX_check_private_key(context->sslContext()) != 1) {
    throw Poco::InvalidArgumentException("the key in " + keyFile + " does not match the certificate in " +
                                         certFile);
  }
  return context;
}

void serveTlsConnection(Poco::Net::StreamSocket client, Runtime& runtime, int forwardPort) {
  try {
    Poco::Net::SecureStreamSocket tls(client);
    tls.setNoDelay(true);
    BufferedSocket front(tls, runtime, Transport::Tls);
    // A client that connects and never says hello must not hold a thread
    // for the whole idle timeout.
    tls.setReceiveTimeout(
        Poco::Timespan(std::chrono::duration_cast<std::chrono::seconds>(kHandshakeTimeout).count(), 0));
    if (tls.completeHandshake() != 1) return;
    tls.setReceiveTimeout(
        Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(runtime.idleTimeout.count()) * 1000));
    BufferedSocket origin(connectLoopback(forwardPort, kOriginConnectTimeout), runtime, Transport::Plain);
    relayTunnel(front, origin, runtime.idleTimeout);
  } catch (const std::exception&) {
    // Failed handshakes (a client that rejects our certificate) and a dead
    // origin just end this connection.
  }
}

}  // namespace fake_proxy
