// A JSON Web Key Set (RFC 7517) turned into OpenSSL verification keys. Keys
// the gateway cannot or must not use (encryption keys, unknown types, weak or
// broken parameters) are skipped, so one odd key never hides the others.
#pragma once

#include <openssl/types.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::auth::jwt {

struct Jwk {
  std::string kid;
  std::string kty;                // "RSA" or "EC"
  std::string alg;                // empty when the keyset does not pin one
  std::string crv;                // "P-256" or "P-384" for EC; empty for RSA
  std::shared_ptr<EVP_PKEY> key;  // public key; thread-safe to verify with concurrently
};

struct Keyset {
  std::vector<Jwk> keys;
  std::size_t skipped = 0;  // keys in the document that were not usable

  // Every usable key with this kid (normally one).
  std::vector<const Jwk*> with_kid(std::string_view kid) const;
};

// RSA moduli below this are refused: 1024-bit keys are factorable by a
// well-funded attacker, and every identity provider publishes 2048 or more.
inline constexpr int kMinRsaBits = 2048;

// Nullopt, with `reason`, when `document` is not a JSON object with a "keys"
// array. A document whose keys are all skipped is an empty Keyset.
std::optional<Keyset> parse_jwks(std::string_view document, std::string& reason);

}  // namespace modelgw::auth::jwt
