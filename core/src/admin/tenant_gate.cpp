#include "admin/tenant_gate.h"

#include <spdlog/spdlog.h>

#include <mutex>

namespace modelgw::admin {

TenantGate::TenantGate(plugins::Storage& storage, int cache_ttl_ms, pii::PolicyDefaults pii_defaults)
    : storage_(storage), ttl_(cache_ttl_ms), pii_defaults_(std::move(pii_defaults)) {}

TenantGate::Entry TenantGate::entry_of(const std::string& tenant_name) {
  const auto now = std::chrono::steady_clock::now();
  if (ttl_.count() > 0) {
    std::shared_lock lock(mutex_);
    if (auto it = cache_.find(tenant_name); it != cache_.end() && it->second.expires > now) return it->second;
  }
  TenantSettings settings;
  if (auto tenant = storage_.find_tenant(tenant_name)) settings = read_settings(tenant->settings_json);
  Entry entry;
  entry.disabled = settings.disabled;
  std::string warning;
  entry.policy = std::make_shared<const pii::Policy>(pii::make_policy(pii_defaults_, settings.pii, &warning));
  if (!warning.empty()) spdlog::warn("tenant '{}': {}", tenant_name, warning);
  entry.expires = now + ttl_;
  if (ttl_.count() > 0) {
    std::unique_lock lock(mutex_);
    cache_[tenant_name] = entry;  // one entry per tenant: bounded by the tenant count
  }
  return entry;
}

std::shared_ptr<const pii::Policy> TenantGate::pii_policy(const std::string& tenant_name) {
  return entry_of(tenant_name).policy;
}

std::optional<http::ApiError> TenantGate::check(const auth::Principal& principal) {
  if (entry_of(principal.tenant_name).disabled) {
    return http::ApiError{
        403,
        "permission_denied",
        "tenant '" + principal.tenant_name + "' is disabled; contact the gateway's operator",
        {}};
  }
  return std::nullopt;
}

void TenantGate::forget(const std::string& tenant_name) {
  std::unique_lock lock(mutex_);
  cache_.erase(tenant_name);
}

}  // namespace modelgw::admin
