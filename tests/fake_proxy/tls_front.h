// --mode tls: terminates TLS with a given certificate and relays the
// decrypted bytes to a plain TCP port on 127.0.0.1 (the fake upstream), so a
// client can speak HTTPS to a plain-HTTP server.
#pragma once

#include <Poco/Net/Context.h>
#include <Poco/Net/StreamSocket.h>

#include <string>

#include "runtime.h"

namespace fake_proxy {

// Loads the certificate chain and key (PEM); throws Poco::Exception if they
// are unreadable or do not match. No client certificates are asked for.
Poco::Net::Context::Ptr makeServerContext(const std::string& certFile, const std::string& keyFile);

// `client` was accepted on a SecureServerSocket; the handshake happens here.
void serveTlsConnection(Poco::Net::StreamSocket client, Runtime& runtime, int forwardPort);

}  // namespace fake_proxy
