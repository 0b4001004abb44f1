// Turns an Authorization header into a Principal: Bearer parsing, key hash
// lookup through storage, and a short-lived cache so the hot path rarely
// touches the database. Revocation takes effect within the cache TTL.
#pragma once

#include "auth/principal.h"
#include "http/api_error.h"
#include "plugins/storage.h"

#include <chrono>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <variant>

namespace modelgw::auth {

class Authenticator {
 public:
  Authenticator(plugins::Storage& storage, int cache_ttl_ms);

  std::variant<Principal, http::ApiError> authenticate(std::string_view authorization_header);

 private:
  struct Entry {
    std::optional<Principal> principal;  // nullopt: known bad key (negative cache)
    std::chrono::steady_clock::time_point expires;
  };

  std::optional<Principal> lookup(const std::string& key_hash);

  plugins::Storage& storage_;
  std::chrono::milliseconds ttl_;
  std::shared_mutex mutex_;
  std::unordered_map<std::string, Entry> cache_;
};

}  // namespace modelgw::auth
