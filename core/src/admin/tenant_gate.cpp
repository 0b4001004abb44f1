#include "admin/tenant_gate.h"

#include <mutex>

namespace modelgw::admin {

TenantGate::TenantGate(plugins::Storage& storage, int cache_ttl_ms) : storage_(storage), ttl_(cache_ttl_ms) {}

TenantSettings TenantGate::settings_of(const std::string& tenant_name) {
  const auto now = std::chrono::steady_clock::now();
  if (ttl_.count() > 0) {
    std::shared_lock lock(mutex_);
    if (auto it = cache_.find(tenant_name); it != cache_.end() && it->second.expires > now)
      return it->second.settings;
  }
  TenantSettings settings;
  if (auto tenant = storage_.find_tenant(tenant_name)) settings = read_settings(tenant->settings_json);
  if (ttl_.count() > 0) {
    std::unique_lock lock(mutex_);
    cache_[tenant_name] = Entry{settings, now + ttl_};  // one entry per tenant: bounded by the tenant count
  }
  return settings;
}

std::optional<http::ApiError> TenantGate::check(const auth::Principal& principal) {
  if (settings_of(principal.tenant_name).disabled) {
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
