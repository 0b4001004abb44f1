#include "budget/tenant_spend.h"

#include "budget/budget_report.h"

#include <mutex>

namespace modelgw::budget {

void TenantSpend::prepare(std::int64_t tenant_id, const std::string& tenant_name) {
  parts.clear();
  parts.reserve(budgets.size() + 2);
  const std::string who = "tenant '" + tenant_name + "'";
  const std::string prefix = "rl:tenant:" + std::to_string(tenant_id);
  if (rate_limits.tenant_requests > 0) {
    parts.push_back(SpendPart{SpendPart::requests,
                              Account{prefix + ":requests", Window::minute, rate_limits.tenant_requests},
                              nullptr, who});
  }
  if (rate_limits.tenant_tokens > 0) {
    parts.push_back(SpendPart{SpendPart::tokens,
                              Account{prefix + ":tokens", Window::minute, rate_limits.tenant_tokens}, nullptr,
                              who});
  }
  for (const auto& b : budgets) {
    parts.push_back(
        SpendPart{SpendPart::money,
                  Account{account_of(b), parse_window(b.window).value_or(Window::none), b.limit_micros},
                  &b,
                  {}});
  }
}

std::span<const SpendPart> TenantSpend::key_parts(std::int64_t key_id) const {
  if (key_id == 0 || (rate_limits.key_requests <= 0 && rate_limits.key_tokens <= 0)) return {};
  {
    std::lock_guard lock(key_parts_mutex_);
    if (auto it = key_parts_.find(key_id); it != key_parts_.end()) return *it->second;
  }
  // Built outside the lock: a race builds twice and keeps the first.
  auto built = std::make_unique<std::vector<SpendPart>>();
  const std::string prefix = "rl:key:" + std::to_string(key_id);
  const std::string who = "API key " + std::to_string(key_id);
  if (rate_limits.key_requests > 0) {
    built->push_back(SpendPart{SpendPart::requests,
                               Account{prefix + ":requests", Window::minute, rate_limits.key_requests},
                               nullptr, who});
  }
  if (rate_limits.key_tokens > 0) {
    built->push_back(SpendPart{SpendPart::tokens,
                               Account{prefix + ":tokens", Window::minute, rate_limits.key_tokens}, nullptr,
                               who});
  }
  std::lock_guard lock(key_parts_mutex_);
  return *key_parts_.try_emplace(key_id, std::move(built)).first->second;
}

}  // namespace modelgw::budget
