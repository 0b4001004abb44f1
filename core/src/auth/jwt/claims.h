// The checks on a signed token's claims (RFC 7519 section 4.1): expiry and
// not-before with leeway, issuer, audience, and the gateway's own tenant and
// scope claims. Called only after the signature verified.
#pragma once

#include "auth/jwt/options.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <variant>

namespace modelgw::auth::jwt {

// What a valid token says about its bearer.
struct VerifiedToken {
  std::string tenant;   // the tenant NAME from the tenant claim
  std::string subject;  // `sub`, empty when absent
  std::string scopes;   // space-separated, possibly empty
  std::string kid;      // the key that signed it (for logs)
};

// What is wrong (a message for the client), when any check fails.
struct ClaimProblem {
  std::string message;
};

std::variant<VerifiedToken, ClaimProblem> check_claims(const nlohmann::json& claims,
                                                       const ValidatorOptions& options,
                                                       std::chrono::system_clock::time_point now);

// Seconds since 1970 as "2026-11-22T06:00:00Z" (the number itself when out
// of the years 0001..9999).
std::string format_unix_time(double seconds);

}  // namespace modelgw::auth::jwt
