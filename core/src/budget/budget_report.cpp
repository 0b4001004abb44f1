#include "budget/budget_report.h"

#include "budget/money.h"
#include "budget/window.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace modelgw::budget {

using nlohmann::json;

std::string account_of(const plugins::BudgetRow& budget) {
  return "budget:" + std::to_string(budget.id);
}

std::string utc_timestamp(std::int64_t unix_ms) {
  using namespace std::chrono;
  const sys_seconds t{seconds(unix_ms / 1000)};
  const sys_days day = floor<days>(t);
  const year_month_day ymd(day);
  const hh_mm_ss hms(t - day);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()));
  return buf;
}

std::string utc_timestamp_ms(std::int64_t unix_ms) {
  std::string s = utc_timestamp(unix_ms);
  char frac[8];
  std::snprintf(frac, sizeof frac, ".%03d", static_cast<int>(((unix_ms % 1000) + 1000) % 1000));
  s.insert(s.size() - 1, frac);
  return s;
}

namespace {

json money(std::int64_t micros) {
  return format_micros(micros);
}

}  // namespace

json budget_json(plugins::Storage& storage, const plugins::BudgetRow& b, std::int64_t now_unix_ms) {
  const Window window = parse_window(b.window).value_or(Window::none);
  const std::int64_t start = window_start(window, now_unix_ms);
  const plugins::LedgerState state = storage.read_ledger(account_of(b), start, now_unix_ms);
  const std::int64_t remaining = std::max<std::int64_t>(0, b.limit_micros - state.spent - state.reserved);
  json j = {{"id", b.id},
            {"scope", b.scope},
            {"name", b.name.empty() ? json() : json(b.name)},
            {"currency", "USD"}};
  if (b.scope == "credit") {
    const std::int64_t balance = std::max<std::int64_t>(0, b.limit_micros - state.spent);
    j["balance"] = money(balance);
    j["balance_micros"] = balance;
    j["reserved"] = money(state.reserved);
    j["reserved_micros"] = state.reserved;
    j["available"] = money(remaining);
    j["available_micros"] = remaining;
    j["topped_up"] = money(b.limit_micros);
    j["topped_up_micros"] = b.limit_micros;
    j["spent"] = money(state.spent);
    j["spent_micros"] = state.spent;
    return j;
  }
  j["feature"] = b.scope == "feature" ? json(b.subject) : json();
  j["key_id"] = b.scope == "key" ? json(std::stoll(b.subject)) : json();
  j["window"] = b.window;
  j["limit"] = money(b.limit_micros);
  j["limit_micros"] = b.limit_micros;
  j["spent"] = money(state.spent);
  j["spent_micros"] = state.spent;
  j["reserved"] = money(state.reserved);
  j["reserved_micros"] = state.reserved;
  j["remaining"] = money(remaining);
  j["remaining_micros"] = remaining;
  j["window_start"] = utc_timestamp(start);
  j["resets_at"] = utc_timestamp(window_end(window, now_unix_ms));
  return j;
}

json budgets_report(plugins::Storage& storage, std::int64_t tenant_id, std::int64_t now_unix_ms) {
  json data = json::array();
  json credit;
  for (const auto& b : storage.list_budgets(tenant_id)) {
    if (b.scope == "credit") {
      credit = budget_json(storage, b, now_unix_ms);
    } else {
      data.push_back(budget_json(storage, b, now_unix_ms));
    }
  }
  return json{{"object", "list"}, {"data", std::move(data)}, {"credit", std::move(credit)}};
}

}  // namespace modelgw::budget
