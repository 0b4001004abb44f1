// The JWS signature algorithms (RFC 7518) the gateway verifies, and what each
// needs from a key. Only public-key algorithms exist here: an HMAC token would
// need a secret shared with the identity provider, and `none` proves nothing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::auth::jwt {

enum class Algorithm { RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384 };

enum class KeyFamily { Rsa, Ec };

struct AlgorithmInfo {
  Algorithm algorithm;
  std::string_view name;    // as in the JWS header, e.g. "ES256"
  std::string_view digest;  // OpenSSL digest name, e.g. "SHA256"
  KeyFamily family;
  bool pss = false;              // RSASSA-PSS rather than PKCS#1 v1.5
  std::string_view curve;        // JWK "crv" an EC key must have ("P-256"); empty for RSA
  std::size_t coordinate_bytes;  // ECDSA: size of r and of s in the JWS signature; 0 for RSA
};

// Nullopt for any name not listed above, `none` and HS* included.
std::optional<AlgorithmInfo> find_algorithm(std::string_view name);

// Every supported name, in a stable order (the default allow-list).
std::vector<std::string> supported_algorithm_names();

// Names the gateway refuses whatever the configuration says: "none" and HS*.
bool is_forbidden_algorithm(std::string_view name);

}  // namespace modelgw::auth::jwt
