// Turns an Authorization header into a Principal. Two kinds of bearer value:
// opaque API keys (hash lookup through storage) and, when auth.jwks_url is
// set, JWTs from the identity provider (jwt::Validator), whose tenant name is
// looked up in storage. Both lookups go through a short-lived cache so the hot
// path rarely touches the database; revocation takes effect within its TTL.
#pragma once

#include "auth/jwt/validator.h"
#include "auth/principal.h"
#include "errors/api_error.h"
#include "plugins/storage.h"
#include "util/single_flight.h"

#include <chrono>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <variant>

namespace modelgw::auth {

class Authenticator {
 public:
  // `jwt` is nullptr when JWTs are disabled: they are then refused with a
  // message saying so.
  Authenticator(plugins::Storage& storage, int cache_ttl_ms, std::shared_ptr<jwt::Validator> jwt = nullptr);

  // May block: a storage lookup on a cache miss, a keyset fetch for a JWT.
  std::variant<Principal, errors::ApiError> authenticate(std::string_view authorization_header);
  // The same answer when it can be given without blocking (a malformed
  // header, a cached API key); nullopt when authenticate() must run off the
  // event loop.
  std::optional<std::variant<Principal, errors::ApiError>> authenticate_cached(
      std::string_view authorization_header);

 private:
  struct Entry {
    std::optional<Principal> principal;  // nullopt: known bad key (negative cache)
    std::chrono::steady_clock::time_point expires;
  };
  struct TenantEntry {
    std::optional<std::int64_t> tenant_id;  // nullopt: no such tenant (negative cache)
    std::chrono::steady_clock::time_point expires;
  };

  // The bearer value, or the 401 for a header that carries none.
  static std::variant<std::string_view, errors::ApiError> bearer_value(std::string_view header);
  std::variant<Principal, errors::ApiError> authenticate_key(std::string_view key);
  std::variant<Principal, errors::ApiError> authenticate_jwt(std::string_view token);
  std::optional<Principal> lookup(const std::string& key_hash);
  std::optional<std::int64_t> lookup_tenant(const std::string& name);

  plugins::Storage& storage_;
  std::chrono::milliseconds ttl_;
  std::shared_ptr<jwt::Validator> jwt_;
  std::shared_mutex mutex_;
  std::unordered_map<std::string, Entry> cache_;          // by key hash
  std::unordered_map<std::string, TenantEntry> tenants_;  // by tenant name, for JWTs
  util::SingleFlight<std::optional<Principal>> key_fetches_;
  util::SingleFlight<std::optional<std::int64_t>> tenant_fetches_;
};

}  // namespace modelgw::auth
