#include "budget/tenant_spend.h"

#include "budget/budget_report.h"

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

}  // namespace modelgw::budget
