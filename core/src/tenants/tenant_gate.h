// Applies a tenant's settings that decide whether its calls may proceed at
// all (`disabled`) and serves its effective PII policy, budgets and rate
// limits. Settings are cached for a short TTL, like keys, so
// the check costs a map lookup; a change made through this process is seen
// at once, one made by another process (the CLI) within the TTL.
#pragma once

#include "auth/principal.h"
#include "budget/tenant_spend.h"
#include "errors/api_error.h"
#include "pii/policy.h"
#include "plugins/storage.h"
#include "tenants/stored_settings.h"
#include "util/single_flight.h"

#include <chrono>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <type_traits>
#include <unordered_map>

namespace modelgw::tenants {

class TenantGate {
 public:
  TenantGate(plugins::Storage& storage, int cache_ttl_ms, pii::PolicyDefaults pii_defaults = {"off", {}, {}},
             budget::RateLimits rate_defaults = {});

  // nullopt when the principal's tenant may proceed; else the 403 to send.
  std::optional<errors::ApiError> check(const auth::Principal& principal);

  // The tenant's PII policy: its settings over the config's defaults. Built
  // once per cache entry, so a request pays a lookup, not a parse.
  std::shared_ptr<const pii::Policy> pii_policy(const std::string& tenant_name);

  // The answers of check() and pii_policy() when the tenant's entry is
  // cached (no storage call); nullopt when it is not.
  std::optional<std::optional<errors::ApiError>> check_cached(const auth::Principal& principal);
  std::shared_ptr<const pii::Policy> pii_policy_cached(const std::string& tenant_name);

  // The tenant's budgets, credit account and rate limits; the same cache.
  std::shared_ptr<const budget::TenantSpend> spend(const std::string& tenant_name);
  std::shared_ptr<const budget::TenantSpend> spend_cached(const std::string& tenant_name);

  void forget(const std::string& tenant_name);
  // A configuration reload: new defaults, and every cached entry rebuilt on
  // its next use (a fetch under way is not cached).
  void set_defaults(pii::PolicyDefaults pii_defaults, budget::RateLimits rate_defaults);

 private:
  struct Entry {
    bool disabled = false;
    std::shared_ptr<const pii::Policy> policy;
    std::shared_ptr<const budget::TenantSpend> spend;
    std::chrono::steady_clock::time_point expires;
  };
  Entry entry_of(const std::string& tenant_name);
  // `read(entry)` under the lock when the tenant's entry is cached and fresh:
  // only what a caller needs is copied (a shared_ptr copy is an atomic
  // increment on a count every loop touches).
  template <class Read>
  auto read_cached(const std::string& tenant_name, Read read)
      -> std::optional<std::invoke_result_t<Read&, const Entry&>>;
  static std::optional<errors::ApiError> refusal(bool disabled, const auth::Principal& principal);

  plugins::Storage& storage_;
  std::chrono::milliseconds ttl_;
  pii::PolicyDefaults pii_defaults_;
  budget::RateLimits rate_defaults_;
  std::shared_mutex mutex_;
  std::unordered_map<std::string, Entry> cache_;
  std::uint64_t generation_ = 0;  // bumped by forget(): a fetch that started before is not cached
  util::SingleFlight<Entry> fetches_;
};

}  // namespace modelgw::tenants
