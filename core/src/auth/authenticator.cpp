#include "auth/authenticator.h"

#include "auth/api_key.h"
#include "plugins/storage_failure.h"
#include "util/ascii.h"

#include <spdlog/spdlog.h>

#include <mutex>

namespace modelgw::auth {
namespace {

// Bounds memory under a flood of random keys: the cache is simply cleared
// when it grows past this, which costs one storage lookup per live key.
constexpr std::size_t kMaxCacheEntries = 100000;
// Keys longer than this are not keys; refuse before hashing megabytes.
constexpr std::size_t kMaxKeyLength = 512;

errors::ApiError unauthorized(std::string code, std::string message) {
  return errors::ApiError{401, std::move(code), std::move(message), {}};
}

}  // namespace

Authenticator::Authenticator(plugins::Storage& storage, int cache_ttl_ms, std::shared_ptr<jwt::Validator> jwt)
    : storage_(storage), ttl_(cache_ttl_ms), jwt_(std::move(jwt)) {}

std::variant<std::string_view, errors::ApiError> Authenticator::bearer_value(std::string_view header) {
  if (header.empty()) {
    return unauthorized("missing_api_key", "no API key: send the header 'Authorization: Bearer <API_KEY>'");
  }
  constexpr std::string_view kBearer = "Bearer ";
  if (!util::istarts_with(header, kBearer)) {
    return unauthorized("invalid_api_key",
                        "the Authorization header must use the Bearer scheme: 'Bearer <API_KEY>'");
  }
  std::string_view value = header.substr(kBearer.size());
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  if (value.empty()) {
    return unauthorized("missing_api_key", "the Authorization header has no API key after 'Bearer'");
  }
  return value;
}

std::variant<Principal, errors::ApiError> Authenticator::authenticate(std::string_view header) {
  auto value = bearer_value(header);
  if (auto* err = std::get_if<errors::ApiError>(&value)) return *err;
  const std::string_view v = std::get<std::string_view>(value);
  // API keys are "sk-mgw-" + base62 and never contain '.'; a JWT always does.
  if (v.find('.') != std::string_view::npos) return authenticate_jwt(v);
  return authenticate_key(v);
}

std::optional<std::variant<Principal, errors::ApiError>> Authenticator::authenticate_cached(
    std::string_view header) {
  auto value = bearer_value(header);
  if (auto* err = std::get_if<errors::ApiError>(&value)) return *err;
  const std::string_view v = std::get<std::string_view>(value);
  if (v.find('.') != std::string_view::npos) {
    if (!jwt_) return authenticate_jwt(v);  // refused without any lookup
    return std::nullopt;                    // signature and keyset: off the loop
  }
  if (v.size() > kMaxKeyLength) return authenticate_key(v);  // refused unread
  if (ttl_.count() <= 0) return std::nullopt;
  const std::string hash = hash_api_key(v);
  std::shared_lock lock(mutex_);
  auto it = cache_.find(hash);
  if (it == cache_.end() || it->second.expires <= std::chrono::steady_clock::now()) return std::nullopt;
  if (!it->second.principal) {
    return unauthorized("invalid_api_key", "the API key is not valid or has been revoked");
  }
  return *it->second.principal;
}

std::variant<Principal, errors::ApiError> Authenticator::authenticate_key(std::string_view key) {
  if (key.size() > kMaxKeyLength) return unauthorized("invalid_api_key", "the API key is not valid");
  const std::string hash = hash_api_key(key);
  std::optional<Principal> principal;
  try {
    principal = lookup(hash);
  } catch (const plugins::StorageError& e) {
    spdlog::error("api key lookup failed: {}", e.what());
    if (plugins::storage_unreachable(e)) return plugins::storage_failure_error(e);
    return errors::internal_error("the gateway could not check the API key right now; retry shortly");
  }
  if (!principal) return unauthorized("invalid_api_key", "the API key is not valid or has been revoked");
  return *principal;
}

std::variant<Principal, errors::ApiError> Authenticator::authenticate_jwt(std::string_view token) {
  if (!jwt_) {
    return unauthorized("invalid_api_key",
                        "this gateway accepts API keys only: JWT bearer tokens are not enabled "
                        "(auth.jwks_url is not set)");
  }
  auto verified = jwt_->validate(token);
  if (auto* e = std::get_if<errors::ApiError>(&verified)) return *e;
  auto& claims = std::get<jwt::VerifiedToken>(verified);
  std::optional<std::int64_t> tenant_id;
  try {
    tenant_id = lookup_tenant(claims.tenant);
  } catch (const plugins::StorageError& e) {
    spdlog::error("tenant lookup for a JWT (kid '{}') failed: {}", claims.kid, e.what());
    if (plugins::storage_unreachable(e)) return plugins::storage_failure_error(e);
    return errors::internal_error("the gateway could not check the token's tenant right now; retry shortly");
  }
  if (!tenant_id) {
    std::string name = claims.tenant.size() <= 80 ? claims.tenant : claims.tenant.substr(0, 80) + "...";
    return errors::ApiError{
        403, "permission_denied", "the token's tenant '" + name + "' is not known to this gateway", {}};
  }
  Principal p;
  p.tenant_id = *tenant_id;
  p.tenant_name = std::move(claims.tenant);
  p.key_id = 0;
  p.scopes = std::move(claims.scopes);
  p.subject = std::move(claims.subject);
  return p;
}

std::optional<std::int64_t> Authenticator::lookup_tenant(const std::string& name) {
  const auto now = std::chrono::steady_clock::now();
  if (ttl_.count() > 0) {
    std::shared_lock lock(mutex_);
    auto it = tenants_.find(name);
    if (it != tenants_.end() && it->second.expires > now) return it->second.tenant_id;
  }
  // One storage call per name however many requests miss at once.
  std::optional<std::int64_t> result = tenant_fetches_.run(name, [&]() -> std::optional<std::int64_t> {
    if (auto tenant = storage_.find_tenant(name)) return tenant->id;
    return std::nullopt;
  });
  if (ttl_.count() > 0) {
    std::unique_lock lock(mutex_);
    if (tenants_.size() >= kMaxCacheEntries) tenants_.clear();
    tenants_[name] = TenantEntry{result, now + ttl_};
  }
  return result;
}

std::optional<Principal> Authenticator::lookup(const std::string& key_hash) {
  const auto now = std::chrono::steady_clock::now();
  if (ttl_.count() > 0) {
    std::shared_lock lock(mutex_);
    auto it = cache_.find(key_hash);
    if (it != cache_.end() && it->second.expires > now) return it->second.principal;
  }
  // One storage call per key however many requests miss at once.
  std::optional<Principal> result = key_fetches_.run(key_hash, [&]() -> std::optional<Principal> {
    if (auto row = storage_.find_api_key(key_hash)) {
      // The store found the row by hash; compare again in constant time so no
      // backend's lookup semantics (collation, prefix match) can widen a match.
      if (constant_time_equal(row->key_hash, key_hash) && row->revoked_unix_ms == 0) {
        return Principal{row->tenant_id, row->tenant_name, row->id, row->scopes, {}};
      }
    }
    return std::nullopt;
  });
  if (ttl_.count() > 0) {
    std::unique_lock lock(mutex_);
    if (cache_.size() >= kMaxCacheEntries) cache_.clear();
    cache_[key_hash] = Entry{result, now + ttl_};
  }
  return result;
}

}  // namespace modelgw::auth
