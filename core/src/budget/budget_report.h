// How a budget and the credit account read back (GET /v1/budgets and the
// admin surface): limit, spent, reserved and remaining in the current window,
// as the store counts them (spend reaches it with the usage records, within
// usage.flush_interval_ms).
#pragma once

#include "plugins/storage.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace modelgw::budget {

// The store's account key of a budget's ledger (also of the credit account).
std::string account_of(const plugins::BudgetRow& budget);

// One budget with its standing at `now_unix_ms`.
nlohmann::json budget_json(plugins::Storage& storage, const plugins::BudgetRow& budget,
                           std::int64_t now_unix_ms);

// {"object": "budgets", "data": [budgets], "credit": {...} or null} for one tenant.
nlohmann::json budgets_report(plugins::Storage& storage, std::int64_t tenant_id, std::int64_t now_unix_ms);

// RFC 3339 UTC, seconds: "2026-12-01T00:00:00Z".
std::string utc_timestamp(std::int64_t unix_ms);
// The same with milliseconds: "2026-11-24T10:30:00.123Z" (records, events).
std::string utc_timestamp_ms(std::int64_t unix_ms);

}  // namespace modelgw::budget
