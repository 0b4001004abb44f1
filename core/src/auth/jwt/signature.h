// JWS signature verification with OpenSSL's EVP_DigestVerify.
#pragma once

#include "auth/jwt/algorithm.h"

#include <openssl/types.h>

#include <string_view>

namespace modelgw::auth::jwt {

// True when `signature` (raw bytes as in the JWS) is `algorithm`'s signature
// of `signing_input` under `key`. ECDSA signatures arrive as r||s of fixed
// size (RFC 7518 3.4) and are converted to the DER form OpenSSL expects; any
// other length is simply false. The caller has already checked that the key's
// type fits the algorithm.
bool verify_signature(const AlgorithmInfo& algorithm, EVP_PKEY* key, std::string_view signing_input,
                      std::string_view signature);

}  // namespace modelgw::auth::jwt
