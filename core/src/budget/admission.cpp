#include "budget/admission.h"

#include "budget/budget_report.h"
#include "budget/money.h"
#include "budget/window.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <limits>

namespace modelgw::budget {
namespace {

constexpr int kRounds = 4;  // refills and clamps before giving up on a request

std::string scope_words(const plugins::BudgetRow& b) {
  if (b.scope == "credit") return "the credit account";
  std::string words = "the " + b.window + "ly budget";
  if (b.window == "day") words = "the daily budget";
  if (b.scope == "tenant") words += " of the tenant";
  if (b.scope == "feature") words += " of feature '" + b.subject + "'";
  if (b.scope == "key") words += " of API key " + b.subject;
  if (!b.name.empty()) words += " ('" + b.name + "')";
  return words;
}

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  return a > std::numeric_limits<std::int64_t>::max() - b ? std::numeric_limits<std::int64_t>::max() : a + b;
}

}  // namespace

std::string format_reset(std::int64_t ms) {
  if (ms < 1000) return std::to_string(std::max<std::int64_t>(ms, 0)) + "ms";
  const std::int64_t s = (ms + 999) / 1000;
  if (s < 60) return std::to_string(s) + "s";
  return std::to_string(s / 60) + "m" + std::to_string(s % 60) + "s";
}

bool Admission::holds_money() const {
  return std::any_of(parts.begin(), parts.end(), [](const Part& p) { return p.kind == money; });
}

std::vector<Draw> SpendControl::draws_of(const Admission& admission, std::int64_t tokens,
                                         std::int64_t micros) const {
  std::vector<Draw> draws;
  draws.reserve(admission.parts.size());
  for (const auto& part : admission.parts) {
    const std::int64_t amount = part.kind == Admission::money    ? micros
                                : part.kind == Admission::tokens ? tokens
                                                                 : 1;
    draws.push_back(Draw{part.account, amount});
  }
  return draws;
}

net::Task<Admission> SpendControl::admit(SpendRequest request) {
  Admission admission;
  const auth::Principal& principal = *request.principal;
  const TenantSpend& spend = *request.spend;

  // Which ledgers apply.
  const RateLimits& rl = spend.rate_limits;
  auto rate = [&](Admission::Kind kind, const char* owner, std::int64_t id, std::int64_t limit,
                  std::string who) {
    if (limit <= 0) return;
    Account account{std::string("rl:") + owner + ":" + std::to_string(id) +
                        (kind == Admission::requests ? ":requests" : ":tokens"),
                    Window::minute, limit};
    admission.parts.push_back(Admission::Part{kind, std::move(account), nullptr, std::move(who)});
  };
  const std::string tenant_words = "tenant '" + principal.tenant_name + "'";
  rate(Admission::requests, "tenant", principal.tenant_id, rl.tenant_requests, tenant_words);
  rate(Admission::tokens, "tenant", principal.tenant_id, rl.tenant_tokens, tenant_words);
  if (principal.key_id != 0) {
    const std::string key_words = "API key " + std::to_string(principal.key_id);
    rate(Admission::requests, "key", principal.key_id, rl.key_requests, key_words);
    rate(Admission::tokens, "key", principal.key_id, rl.key_tokens, key_words);
  }
  const std::string key_subject = std::to_string(principal.key_id);
  for (const auto& b : spend.budgets) {
    const bool applies = b.scope == "tenant" || b.scope == "credit" ||
                         (b.scope == "feature" && !request.feature.empty() && b.subject == request.feature) ||
                         (b.scope == "key" && principal.key_id != 0 && b.subject == key_subject);
    if (!applies) continue;
    const auto window = parse_window(b.window).value_or(Window::none);
    admission.parts.push_back(Admission::Part{
        Admission::money, Account{"budget:" + std::to_string(b.id), window, b.limit_micros}, &b, {}});
  }
  if (admission.parts.empty()) co_return admission;

  const bool client_set = request.client_max_tokens.has_value();
  std::int64_t output = client_set ? *request.client_max_tokens : request.default_output_tokens;
  const bool money = admission.holds_money();
  for (int round = 0; round < kRounds; ++round) {
    const std::int64_t micros =
        money ? pricing::cost_micros(request.prices, request.prompt_tokens, 0, output) : 0;
    const std::int64_t tokens = saturating_add(request.prompt_tokens, output);
    const std::vector<Draw> draws = draws_of(admission, tokens, micros);
    Shortfall shortfall;
    if (ledger_.try_hold(draws, admission.hold, shortfall)) {
      admission.output_tokens = output;
      admission.hold_micros = micros;
      admission.clamped = !client_set && output < request.default_output_tokens;
      rate_headers(admission);
      co_return admission;
    }
    const Admission::Part& part = admission.parts[shortfall.index];
    const Account account = part.account;  // named: the lambda below outlives no temporaries
    const std::int64_t needed = shortfall.needed;
    bool refilled = false;
    bool unavailable = false;
    try {
      refilled = co_await net::offload(blocking_, [&] { return ledger_.refill(account, needed); });
    } catch (const std::exception& e) {
      spdlog::error("budget: taking a lease on {} failed: {}", account.name, e.what());
      unavailable = true;
    }
    if (unavailable) {
      http::ApiError error{
          503,
          "service_unavailable",
          "the gateway cannot reach its budget store to hold this request's cost; retry shortly",
          {}};
      error.retry_after_s = 1;
      error.retryable = true;
      admission.refusal = std::move(error);
      co_return admission;
    }
    if (refilled) continue;
    if (part.kind != Admission::money) {
      admission.refusal = rate_refusal(part, admission);
      co_return admission;
    }
    // Money is short. A client that set its own limit is refused; one that
    // did not gets the output that fits, if enough of it does.
    if (!client_set) {
      const std::int64_t available = ledger_.remaining(account);
      const std::int64_t fits =
          pricing::affordable_output_tokens(request.prices, request.prompt_tokens, available);
      if (fits >= options_.min_output_tokens && fits < output) {
        output = fits;
        continue;
      }
    }
    admission.refusal = budget_refusal(part, micros, admission);
    co_return admission;
  }
  // Others kept taking what was freed: refuse rather than loop.
  admission.refusal = budget_refusal(admission.parts.front(), 0, admission);
  co_return admission;
}

http::ApiError SpendControl::budget_refusal(const Admission::Part& part, std::int64_t needed,
                                            Admission& admission) {
  if (part.kind != Admission::money) return rate_refusal(part, admission);
  const plugins::BudgetRow& b = *part.budget;
  const std::int64_t left = ledger_.remaining(part.account);
  std::string message;
  if (b.scope == "credit") {
    admission.reason = "CREDIT_INSUFFICIENT";
    message = "the credit account has " + format_micros(left) + " USD available";
    if (needed > 0) message += " and this request may cost up to " + format_micros(needed) + " USD";
    message += "; top up the account or lower max_tokens";
  } else {
    admission.reason = "BUDGET_EXCEEDED";
    const std::int64_t resets = window_end(part.account.window, now_());
    message = scope_words(b) + " is exhausted: " + format_micros(left) + " of " +
              format_micros(b.limit_micros) + " USD left";
    if (needed > 0) message += ", and this request may cost up to " + format_micros(needed) + " USD";
    message += "; it resets at " + utc_timestamp(resets);
  }
  return http::ApiError{402, "insufficient_credits", std::move(message), {}};
}

http::ApiError SpendControl::rate_refusal(const Admission::Part& part, Admission& admission) {
  admission.reason = "RATE_LIMITED";
  const std::int64_t now = now_();
  const std::int64_t wait_ms = window_end(Window::minute, now) - now;
  const std::int64_t seconds = std::max<std::int64_t>(1, (wait_ms + 999) / 1000);
  rate_headers(admission);
  const char* unit = part.kind == Admission::requests ? " requests" : " tokens";
  http::ApiError error{429,
                       "rate_limit_exceeded",
                       "rate limit of " + std::to_string(part.account.limit) + unit + " per minute for " +
                           part.who + " reached; retry in " + std::to_string(seconds) + " seconds",
                       {}};
  error.retry_after_s = static_cast<int>(seconds);  // the Retry-After header (spec 7.4)
  error.retryable = true;
  return error;
}

// OpenAI's headers, from the tighter of the tenant's and the key's limits.
void SpendControl::rate_headers(Admission& admission) {
  const std::int64_t now = now_();
  const std::string reset = format_reset(window_end(Window::minute, now) - now);
  for (Admission::Kind kind : {Admission::requests, Admission::tokens}) {
    const Admission::Part* tightest = nullptr;
    std::int64_t left = 0;
    for (const auto& part : admission.parts) {
      if (part.kind != kind) continue;
      const std::int64_t r = ledger_.remaining(part.account);
      if (tightest == nullptr || r < left) {
        tightest = &part;
        left = r;
      }
    }
    if (tightest == nullptr) continue;
    const std::string suffix = kind == Admission::requests ? "requests" : "tokens";
    admission.headers.emplace_back("x-ratelimit-limit-" + suffix, std::to_string(tightest->account.limit));
    admission.headers.emplace_back("x-ratelimit-remaining-" + suffix, std::to_string(left));
    admission.headers.emplace_back("x-ratelimit-reset-" + suffix, reset);
  }
}

void SpendControl::settle(Admission& admission, std::int64_t cost_micros, std::int64_t total_tokens,
                          std::vector<mgw_ledger_charge>& charges) {
  if (admission.hold.empty()) return;
  std::vector<std::int64_t> actual;
  actual.reserve(admission.parts.size());
  for (const auto& part : admission.parts) {
    actual.push_back(part.kind == Admission::money    ? cost_micros
                     : part.kind == Admission::tokens ? total_tokens
                                                      : 1);
  }
  ledger_.settle(admission.hold, actual, charges);
}

}  // namespace modelgw::budget
