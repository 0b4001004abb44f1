// What limits a tenant's spending: its budgets and credit account (from the
// store) and its rate limits (its settings over the config's defaults).
// Built when the tenant's entry is fetched (admin/tenant_gate), with the
// ledger accounts each request of the tenant draws on, so a request reads it
// without a store call or building a name.
#pragma once

#include "budget/ledger.h"
#include "plugins/storage.h"
#include "util/spin_mutex.h"

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
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

// One ledger a request may draw on.
struct SpendPart {
  enum Kind { money, requests, tokens } kind = money;
  Account account;
  const plugins::BudgetRow* budget = nullptr;  // for money: the budget (scope, subject, name, limit)
  std::string who;                             // for rate limits: "tenant 'acme'" or "API key 12"
};

struct TenantSpend {
  std::vector<plugins::BudgetRow> budgets;  // credit account included (scope "credit")
  RateLimits rate_limits;
  std::vector<SpendPart> parts;  // by prepare(): the tenant's rate limits, then every budget

  TenantSpend() = default;
  // parts point into budgets: never copied.
  TenantSpend(const TenantSpend&) = delete;
  TenantSpend& operator=(const TenantSpend&) = delete;

  // Builds `parts` from budgets and rate_limits; call once they are set.
  void prepare(std::int64_t tenant_id, const std::string& tenant_name);
  bool limits_anything() const { return !budgets.empty() || rate_limits.any(); }

  // The key's own rate limits (requests, then tokens, each if set), built on
  // a key's first request and kept while this TenantSpend is: a request
  // then names no account. Thread-safe; the parts live as long as this.
  std::span<const SpendPart> key_parts(std::int64_t key_id) const;

 private:
  mutable util::SpinMutex key_parts_mutex_;
  // One entry per key of the tenant that sent a request since the tenant's
  // entry was fetched: bounded by the tenant's keys.
  mutable std::map<std::int64_t, std::unique_ptr<const std::vector<SpendPart>>> key_parts_;
};

}  // namespace modelgw::budget
