// Proxy-Authorization: Basic, checked against --require-auth user:pass.
#pragma once

#include <optional>
#include <string>

#include "http_head.h"

namespace fake_proxy {

struct AuthResult {
  std::optional<std::string> user;  // from a well-formed Basic header, right or wrong
  bool accepted = false;
};

// `required` is "user:pass", or nullopt when the proxy is open to all.
AuthResult checkProxyAuth(const Headers& headers, const std::optional<std::string>& required);

// The 407 answer's challenge header value.
inline constexpr const char* kProxyChallenge = "Basic realm=\"fake_proxy\"";

}  // namespace fake_proxy
