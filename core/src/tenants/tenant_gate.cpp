#include "tenants/tenant_gate.h"

#include <spdlog/spdlog.h>

#include <mutex>

namespace modelgw::tenants {

namespace {

budget::RateLimits rate_limits_of(const nlohmann::json& settings, budget::RateLimits limits) {
  if (!settings.is_object()) return limits;
  auto read = [&](const char* name, std::int64_t& out) {
    if (auto it = settings.find(name); it != settings.end() && it->is_number_integer() && *it >= 0) {
      out = it->get<std::int64_t>();
    }
  };
  read("tenant_requests_per_minute", limits.tenant_requests);
  read("tenant_tokens_per_minute", limits.tenant_tokens);
  read("key_requests_per_minute", limits.key_requests);
  read("key_tokens_per_minute", limits.key_tokens);
  return limits;
}

}  // namespace

TenantGate::TenantGate(plugins::Storage& storage, int cache_ttl_ms, pii::PolicyDefaults pii_defaults,
                       budget::RateLimits rate_defaults)
    : storage_(storage),
      ttl_(cache_ttl_ms),
      pii_defaults_(std::move(pii_defaults)),
      rate_defaults_(rate_defaults) {}

TenantGate::Entry TenantGate::entry_of(const std::string& tenant_name) {
  const auto now = std::chrono::steady_clock::now();
  if (ttl_.count() > 0) {
    std::shared_lock lock(mutex_);
    if (auto it = cache_.find(tenant_name); it != cache_.end() && it->second.expires > now) return it->second;
  }
  std::uint64_t generation = 0;
  pii::PolicyDefaults pii_defaults;
  budget::RateLimits rate_defaults;
  {
    std::shared_lock lock(mutex_);
    generation = generation_;
    pii_defaults = pii_defaults_;
    rate_defaults = rate_defaults_;
  }
  // One storage call per tenant however many requests miss at once; a
  // forget() in between starts a new one (the generation is in the key).
  Entry entry = fetches_.run(tenant_name + '\0' + std::to_string(generation), [&] {
    TenantSettings settings;
    auto spend = std::make_shared<budget::TenantSpend>();
    std::int64_t tenant_id = 0;
    if (auto tenant = storage_.find_tenant(tenant_name)) {
      tenant_id = tenant->id;
      settings = read_settings(tenant->settings_json);
      if (storage_.supports_spend_control()) spend->budgets = storage_.list_budgets(tenant->id);
    }
    // Without the store's ledger hooks nothing can be metered (warned at start-up).
    if (storage_.supports_spend_control())
      spend->rate_limits = rate_limits_of(settings.rate_limits, rate_defaults);
    spend->prepare(tenant_id, tenant_name);
    Entry fresh;
    fresh.spend = std::move(spend);
    fresh.disabled = settings.disabled;
    std::string warning;
    fresh.policy =
        std::make_shared<const pii::Policy>(pii::make_policy(pii_defaults, settings.pii, &warning));
    if (!warning.empty()) spdlog::warn("tenant '{}': {}", tenant_name, warning);
    fresh.expires = std::chrono::steady_clock::now() + ttl_;
    return fresh;
  });
  if (ttl_.count() > 0) {
    std::unique_lock lock(mutex_);
    // One entry per tenant: bounded by the tenant count.
    if (generation == generation_) cache_[tenant_name] = entry;
  }
  return entry;
}

void TenantGate::set_defaults(pii::PolicyDefaults pii_defaults, budget::RateLimits rate_defaults) {
  std::unique_lock lock(mutex_);
  pii_defaults_ = std::move(pii_defaults);
  rate_defaults_ = rate_defaults;
  cache_.clear();
  ++generation_;
}

std::shared_ptr<const pii::Policy> TenantGate::pii_policy(const std::string& tenant_name) {
  return entry_of(tenant_name).policy;
}

std::optional<errors::ApiError> TenantGate::refusal(bool disabled, const auth::Principal& principal) {
  if (!disabled) return std::nullopt;
  return errors::ApiError{
      403,
      "permission_denied",
      "tenant '" + principal.tenant_name + "' is disabled; contact the gateway's operator",
      {}};
}

std::optional<errors::ApiError> TenantGate::check(const auth::Principal& principal) {
  return refusal(entry_of(principal.tenant_name).disabled, principal);
}

template <class Read>
auto TenantGate::read_cached(const std::string& tenant_name, Read read)
    -> std::optional<std::invoke_result_t<Read&, const Entry&>> {
  if (ttl_.count() <= 0) return std::nullopt;
  std::shared_lock lock(mutex_);
  auto it = cache_.find(tenant_name);
  if (it == cache_.end() || it->second.expires <= std::chrono::steady_clock::now()) return std::nullopt;
  return read(it->second);
}

std::optional<std::optional<errors::ApiError>> TenantGate::check_cached(const auth::Principal& principal) {
  const auto disabled = read_cached(principal.tenant_name, [](const Entry& e) { return e.disabled; });
  if (!disabled) return std::nullopt;
  return refusal(*disabled, principal);
}

std::shared_ptr<const pii::Policy> TenantGate::pii_policy_cached(const std::string& tenant_name) {
  return read_cached(tenant_name, [](const Entry& e) { return e.policy; }).value_or(nullptr);
}

std::shared_ptr<const budget::TenantSpend> TenantGate::spend(const std::string& tenant_name) {
  return entry_of(tenant_name).spend;
}

std::shared_ptr<const budget::TenantSpend> TenantGate::spend_cached(const std::string& tenant_name) {
  return read_cached(tenant_name, [](const Entry& e) { return e.spend; }).value_or(nullptr);
}

void TenantGate::forget(const std::string& tenant_name) {
  std::unique_lock lock(mutex_);
  cache_.erase(tenant_name);
  ++generation_;
}

}  // namespace modelgw::tenants
