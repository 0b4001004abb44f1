// What limits a tenant's spending: its budgets and credit account (from the
// store) and its rate limits (its settings over the config's defaults).
// Built when the tenant's entry is fetched (admin/tenant_gate), so a request
// reads it without a store call.
#pragma once

#include "plugins/storage.h"

#include <cstdint>
#include <vector>

namespace modelgw::budget {

// Per minute; 0 means no limit.
struct RateLimits {
  std::int64_t tenant_requests = 0;
  std::int64_t tenant_tokens = 0;
  std::int64_t key_requests = 0;
  std::int64_t key_tokens = 0;
  bool any() const { return tenant_requests > 0 || tenant_tokens > 0 || key_requests > 0 || key_tokens > 0; }
};

struct TenantSpend {
  std::vector<plugins::BudgetRow> budgets;  // credit account included (scope "credit")
  RateLimits rate_limits;
};

}  // namespace modelgw::budget
