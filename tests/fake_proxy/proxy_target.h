// Request targets a forward proxy receives: absolute-form URLs
// ("http://127.0.0.1:8080/v1/x") and CONNECT authorities ("127.0.0.1:443"),
// and the rule that only loopback origins may be reached.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fake_proxy {

struct Authority {
  std::string host;  // as written (brackets kept for IPv6 literals)
  int port = 0;
};

struct AbsoluteTarget {
  Authority authority;
  std::string originForm;  // "/path?query", what the origin is sent
};

// "host:port"; the port is required unless `defaultPort` > 0.
std::optional<Authority> parseAuthority(std::string_view text, int defaultPort);
// Only "http://" URLs: an https origin is reached with CONNECT.
std::optional<AbsoluteTarget> parseAbsoluteTarget(std::string_view target);

// 127.0.0.1 and localhost only: this tool must never send traffic off the
// machine, whatever a client asks for.
bool isAllowedOrigin(const Authority& authority);

}  // namespace fake_proxy
