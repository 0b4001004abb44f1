// Opens one connection to an upstream on the caller's event loop: resolve,
// connect, the CONNECT tunnel through an HTTP proxy (https upstreams), the TLS
// handshake, all within one timeout and cancelled at once when the client
// hangs up. No blocking call: the resolver runs getaddrinfo off the loop.
#pragma once

#include "net/asio.h"
#include "net/cancel_signal.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace boost::asio::ssl {
class context;
}

namespace modelgw::upstream {

class UpstreamConnection;

struct ConnectPlan {
  std::string host;  // where TCP goes: the upstream, or the proxy when there is one
  std::uint16_t port = 0;
  bool via_proxy = false;
  std::string tunnel_request;  // the CONNECT head to send first; empty for none
  std::string tls_host;        // the upstream's name for SNI and certificate checks; empty for plain TCP
  std::string where;           // "host:port" of the upstream, for messages
  std::chrono::milliseconds timeout{5000};
};

// Throws UpstreamFailure: connect (cannot resolve, refused, the proxy refused,
// TLS failed, not done within the timeout) or cancelled.
net::Task<std::unique_ptr<UpstreamConnection>> open_connection(const ConnectPlan& plan,
                                                               boost::asio::ssl::context* tls,
                                                               net::CancelSignal* cancel);

}  // namespace modelgw::upstream
