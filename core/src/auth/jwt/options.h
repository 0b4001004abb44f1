// The settings of JWT validation, the keyset cache and the keyset fetch, as
// plain data (filled from config::AuthConfig by factory.cpp, or by tests).
#pragma once

#include "auth/jwt/algorithm.h"
#include "upstream/proxy.h"

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace modelgw::auth::jwt {

struct ValidatorOptions {
  std::string issuer;    // `iss` must equal this
  std::string audience;  // `aud` must be or contain this
  std::string tenant_claim = "tenant";
  std::string scope_claim = "scope";
  std::chrono::seconds leeway{60};  // clock skew allowed on exp, nbf, iat
  std::vector<std::string> algorithms = supported_algorithm_names();
  std::size_t max_token_bytes = 8192;
};

struct KeysetCacheOptions {
  std::chrono::milliseconds default_ttl{300000};  // when the response names no max-age
  std::chrono::milliseconds max_ttl{3600000};     // upper bound on any max-age
  // Fetches (on expiry, for an unknown kid, after a failure) start at most this
  // often, except that keys past their TTL are always refetched once they are
  // needed and the last fetch succeeded.
  std::chrono::milliseconds refresh_min_interval{10000};
  // How long a validation waits for a fetch another thread started.
  std::chrono::milliseconds max_wait{7000};
  std::string source_host;  // named in the 503 message; never the whole URL
};

struct HttpFetchOptions {
  std::string url;                          // http:// or https://
  std::chrono::milliseconds timeout{3000};  // connect, and each read of the response
  std::string ca_file;                      // extra trusted CAs (PEM), besides the system store
  std::optional<upstream::ProxySettings> proxy;
  std::size_t max_body_bytes = 1024 * 1024;
};

}  // namespace modelgw::auth::jwt
