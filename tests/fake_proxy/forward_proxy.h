// --mode forward: serves one client connection of the HTTP forward proxy:
// absolute-form requests (relayed to a loopback origin, keep-alive on both
// sides), CONNECT tunnels, and GET/DELETE /_proxy/log.
#pragma once

#include <Poco/Net/StreamSocket.h>

#include <optional>
#include <string>

#include "proxy_log.h"
#include "runtime.h"

namespace fake_proxy {

struct ForwardConfig {
  std::optional<std::string> requiredCredentials;  // "user:pass"
};

// Returns when the client leaves, on an error, on idle timeout or at stop.
void serveForwardConnection(Poco::Net::StreamSocket client, Runtime& runtime, ProxyLog& log,
                            const ForwardConfig& config);

}  // namespace fake_proxy
