// The whole check of a JWT bearer token: well-formed, an accepted algorithm,
// a known key of the right type, a valid signature, then the claims (time,
// issuer, audience, tenant, scopes). Every refusal is an ApiError whose
// message says what to fix and never quotes the token.
#pragma once

#include "auth/jwt/claims.h"
#include "auth/jwt/keyset_cache.h"
#include "auth/jwt/options.h"
#include "errors/api_error.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace modelgw::auth::jwt {

class Validator {
 public:
  using WallClock = std::function<std::chrono::system_clock::time_point()>;

  // Algorithms in `options` that are unknown, `none` or HMAC are dropped (the
  // config loader already refuses them).
  Validator(
      ValidatorOptions options, std::shared_ptr<KeysetCache> keys,
      WallClock wall_clock = [] { return std::chrono::system_clock::now(); });

  // 401 invalid_api_key for a token that fails any check, 503
  // jwks_unavailable when the keys cannot be had. Never throws.
  std::variant<VerifiedToken, errors::ApiError> validate(std::string_view token) const;

  // Fetches the keyset once (start-up); false when that failed.
  bool prefetch() { return keys_->prefetch(); }
  // Whether keys can be had now (GET /readyz); may fetch them, so blocking.
  bool keyset_available() { return std::holds_alternative<std::shared_ptr<const Keyset>>(keys_->current()); }

  const ValidatorOptions& options() const { return options_; }

 private:
  std::variant<VerifiedToken, errors::ApiError> check(std::string_view token) const;

  ValidatorOptions options_;
  std::vector<AlgorithmInfo> accepted_;
  std::string accepted_names_;  // "RS256, ES256", for messages
  std::shared_ptr<KeysetCache> keys_;
  WallClock wall_clock_;
};

}  // namespace modelgw::auth::jwt
