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

// Rounds past one per account (each round refills the one account found
// short, so a cold ledger needs a round per limit): clamps, and refills again
// when others took what was freed, before giving up on a request.
constexpr int kExtraRounds = 4;

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

bool wanted(SpendPart::Kind kind, SpendRequest::Parts parts) {
  switch (parts) {
    case SpendRequest::Parts::requests_only:
      return kind == SpendPart::requests;
    case SpendRequest::Parts::all_but_requests:
      return kind != SpendPart::requests;
    default:
      return true;
  }
}

std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {  // both >= 0
  return b != 0 && a > std::numeric_limits<std::int64_t>::max() / b ? std::numeric_limits<std::int64_t>::max()
                                                                    : a * b;
}

}  // namespace

bool Admission::holds_money() const {
  return std::any_of(parts.begin(), parts.end(),
                     [](const SpendPart* p) { return p->kind == SpendPart::money; });
}

bool Admission::holds_output() const {
  return std::any_of(parts.begin(), parts.end(),
                     [](const SpendPart* p) { return p->kind != SpendPart::requests; });
}

void SpendControl::draws_of(const Admission& admission, std::int64_t tokens, std::int64_t micros,
                            boost::container::small_vector<Draw, 8>& draws) {
  draws.clear();
  for (const SpendPart* part : admission.parts) {
    const std::int64_t amount = part->kind == Admission::money    ? micros
                                : part->kind == Admission::tokens ? tokens
                                                                  : 1;
    draws.push_back(Draw{&part->account, amount});
  }
}

bool SpendControl::begin(const SpendRequest& request, Admission& admission, Rounds& rounds) {
  const auth::Principal& principal = *request.principal;
  const TenantSpend& spend = *request.spend;
  // Which ledgers apply: the tenant's prepared parts (its rate limits, every
  // budget whose scope matches), then the key's rate limits.
  for (const SpendPart& part : spend.parts) {
    if (part.kind == SpendPart::money) {
      const plugins::BudgetRow& b = *part.budget;
      const bool applies =
          b.scope == "tenant" || b.scope == "credit" ||
          (b.scope == "feature" && !request.feature.empty() && b.subject == request.feature) ||
          (b.scope == "key" && principal.key_id != 0 && b.subject == std::to_string(principal.key_id));
      if (!applies) continue;
    }
    if (!wanted(part.kind, request.parts)) continue;
    admission.parts.push_back(&part);
  }
  for (const SpendPart& part : spend.key_parts(principal.key_id)) {
    if (wanted(part.kind, request.parts)) admission.parts.push_back(&part);
  }
  if (admission.parts.empty()) return false;
  rounds.client_set = request.client_max_tokens.has_value();
  rounds.output = rounds.client_set ? *request.client_max_tokens : request.default_output_tokens;
  // Every choice may use the whole output limit: n multiplies what is held.
  rounds.choices = std::max<std::int64_t>(1, request.choices);
  rounds.money = admission.holds_money();
  rounds.rounds = static_cast<int>(admission.parts.size()) + kExtraRounds;
  return true;
}

bool SpendControl::try_round(const SpendRequest& request, Admission& admission, Rounds& rounds) {
  if (rounds.round >= rounds.rounds) {
    // Others kept taking what was freed: refuse rather than loop.
    admission.refusal = budget_refusal(*admission.parts.front(), 0, admission);
    return true;
  }
  const std::int64_t all_output = saturating_mul(rounds.output, rounds.choices);
  rounds.micros =
      rounds.money ? pricing::cost_micros(request.prices, request.prompt_tokens, 0, all_output) : 0;
  const std::int64_t tokens = saturating_add(request.prompt_tokens, all_output);
  boost::container::small_vector<Draw, 8> draws;
  draws_of(admission, tokens, rounds.micros, draws);
  // After the hold, per draw: for the rate-limit headers.
  boost::container::small_vector<std::int64_t, 8> remaining(draws.size(), 0);
  const std::span<std::int64_t> left(remaining.data(), remaining.size());
  Shortfall shortfall;
  if (ledger_.try_hold({draws.data(), draws.size()}, admission.hold, shortfall, left)) {
    admission.output_tokens = rounds.output;
    admission.hold_micros = rounds.micros;
    admission.clamped = !rounds.client_set && rounds.output < request.default_output_tokens;
    rate_headers(admission, left);
    return true;
  }
  rounds.short_index = shortfall.index;
  rounds.needed = shortfall.needed;
  return false;
}

bool SpendControl::after_refill(const SpendRequest& request, Admission& admission, Rounds& rounds,
                                bool refilled) {
  ++rounds.round;
  if (refilled) return false;
  const SpendPart& part = *admission.parts[rounds.short_index];
  const Account& account = part.account;
  if (part.kind == SpendPart::tokens) {
    // Even a whole minute of the limit cannot hold this request: say which
    // parameter to lower instead of a 429 that would come back forever.
    const std::int64_t room = (account.limit - request.prompt_tokens) / rounds.choices;
    if (room < (rounds.client_set ? rounds.output : options_.min_output_tokens)) {
      admission.refusal = never_fits(part, request, rounds.output, admission);
      return true;
    }
    // A client that set no limit gets the output the minute has left, as
    // with money; otherwise it waits for the next minute.
    if (!rounds.client_set) {
      const std::int64_t fits = (ledger_.remaining(account) - request.prompt_tokens) / rounds.choices;
      if (fits >= options_.min_output_tokens && fits < rounds.output) {
        rounds.output = fits;
        return false;
      }
    }
  }
  if (part.kind != SpendPart::money) {
    admission.refusal = rate_refusal(part, admission);
    return true;
  }
  // Money is short. A client that set its own limit is refused; one that
  // did not gets the output that fits, if enough of it does.
  if (!rounds.client_set) {
    const std::int64_t available = ledger_.remaining(account);
    const std::int64_t fits =
        pricing::affordable_output_tokens(request.prices, request.prompt_tokens, available) / rounds.choices;
    if (fits >= options_.min_output_tokens && fits < rounds.output) {
      rounds.output = fits;
      return false;
    }
  }
  admission.refusal = budget_refusal(part, rounds.micros, admission);
  return true;
}

std::optional<Admission> SpendControl::admit_now(const SpendRequest& request) {
  Admission admission;
  Rounds rounds;
  if (!begin(request, admission, rounds) || try_round(request, admission, rounds)) return admission;
  return std::nullopt;  // a lease is short: nothing was held
}

net::Task<Admission> SpendControl::admit(SpendRequest request) {
  Admission admission;
  Rounds rounds;
  if (!begin(request, admission, rounds)) co_return admission;
  while (!try_round(request, admission, rounds)) {
    const Account& account = admission.parts[rounds.short_index]->account;
    bool refilled = false;
    bool unavailable = false;
    try {
      refilled = co_await net::offload(blocking_, [&] { return ledger_.refill(account, rounds.needed); });
    } catch (const std::exception& e) {
      spdlog::error("budget: taking a lease on {} failed: {}", account.name, e.what());
      unavailable = true;
    }
    if (unavailable) {
      errors::ApiError error{
          503,
          "storage_unavailable",
          "the gateway cannot reach its budget store to hold this request's cost; retry shortly",
          {}};
      error.retry_after_s = 1;
      error.retryable = true;
      admission.refusal = std::move(error);
      co_return admission;
    }
    if (after_refill(request, admission, rounds, refilled)) break;
  }
  co_return admission;
}

SpendRequest SpendControl::requests_only(const auth::Principal& principal, const TenantSpend& spend) {
  SpendRequest request;
  request.principal = &principal;
  request.spend = &spend;
  request.parts = SpendRequest::Parts::requests_only;
  return request;
}

net::Task<Admission> SpendControl::admit_requests(const auth::Principal& principal,
                                                  const TenantSpend& spend) {
  co_return co_await admit(requests_only(principal, spend));
}

errors::ApiError SpendControl::budget_refusal(const SpendPart& part, std::int64_t needed,
                                              Admission& admission) {
  if (part.kind != SpendPart::money) return rate_refusal(part, admission);
  const plugins::BudgetRow& b = *part.budget;
  const std::int64_t left = ledger_.remaining(part.account);
  admission.exhausted_account = part.account.name;
  admission.exhausted_window_start_unix_ms = window_start(part.account.window, now_());
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
  return errors::ApiError{402, "insufficient_credits", std::move(message), {}};
}

errors::ApiError SpendControl::rate_refusal(const SpendPart& part, Admission& admission) {
  admission.reason = "RATE_LIMITED";
  const std::int64_t now = now_();
  const std::int64_t wait_ms = window_end(Window::minute, now) - now;
  const std::int64_t seconds = std::max<std::int64_t>(1, (wait_ms + 999) / 1000);
  std::vector<std::int64_t> left;
  for (const SpendPart* p : admission.parts)
    left.push_back(p->kind == SpendPart::money ? 0 : ledger_.remaining(p->account));
  rate_headers(admission, left);
  const char* unit = part.kind == SpendPart::requests ? " requests" : " tokens";
  errors::ApiError error{429,
                         "rate_limit_exceeded",
                         "rate limit of " + std::to_string(part.account.limit) + unit + " per minute for " +
                             part.who + " reached; retry in " + std::to_string(seconds) + " seconds",
                         {}};
  error.retry_after_s = static_cast<int>(seconds);  // the Retry-After header (spec 7.4)
  error.retryable = true;
  return error;
}

errors::ApiError SpendControl::never_fits(const SpendPart& part, const SpendRequest& request,
                                          std::int64_t output, Admission& admission) {
  admission.reason = "RATE_LIMITED";
  const std::int64_t limit = part.account.limit;
  std::string message = "this request needs " + std::to_string(request.prompt_tokens) +
                        " prompt tokens plus " + std::to_string(output) + " output tokens";
  if (request.choices > 1) message += " for each of " + std::to_string(request.choices) + " choices";
  message += ", more than the rate limit of " + std::to_string(limit) + " tokens per minute for " + part.who +
             " allows in any minute; ";
  const std::int64_t room = (limit - request.prompt_tokens) / std::max<std::int64_t>(1, request.choices);
  if (room >= options_.min_output_tokens) {
    message += "set max_tokens to at most " + std::to_string(room);
  } else {
    message += "shorten the prompt (or n), then set max_tokens to fit";
  }
  return errors::ApiError{422, "max_tokens_exceeds_rate_limit", std::move(message), "max_tokens"};
}

// OpenAI's headers, from the tighter of the tenant's and the key's limits.
void SpendControl::rate_headers(Admission& admission, std::span<const std::int64_t> remaining) {
  const SpendPart* tightest[2] = {nullptr, nullptr};  // requests, tokens
  std::int64_t left[2] = {0, 0};
  for (std::size_t i = 0; i < admission.parts.size() && i < remaining.size(); ++i) {
    const SpendPart* part = admission.parts[i];
    if (part->kind == SpendPart::money) continue;
    const int k = part->kind == SpendPart::requests ? 0 : 1;
    const std::int64_t r = remaining[i];
    if (tightest[k] == nullptr || r < left[k]) {
      tightest[k] = part;
      left[k] = r;
    }
  }
  if (tightest[0] == nullptr && tightest[1] == nullptr) return;
  const std::int64_t now = now_();
  const std::int64_t reset_ms = window_end(Window::minute, now) - now;
  http::RateLimitFields::Limit* fields[2] = {&admission.rate_limits.requests, &admission.rate_limits.tokens};
  for (int k = 0; k < 2; ++k) {
    if (tightest[k] != nullptr) *fields[k] = {tightest[k]->account.limit, left[k], reset_ms};
  }
}

void SpendControl::settle(Admission& admission, std::int64_t cost_micros, std::int64_t total_tokens,
                          std::vector<mgw_ledger_charge>& charges) {
  if (admission.hold.empty()) return;
  boost::container::small_vector<std::int64_t, 8> actual;
  bool over = false;
  for (std::size_t i = 0; i < admission.parts.size(); ++i) {
    const SpendPart* part = admission.parts[i];
    const std::int64_t amount = part->kind == SpendPart::money    ? cost_micros
                                : part->kind == SpendPart::tokens ? total_tokens
                                                                  : 1;
    // The hold is meant to be an upper bound: a vendor that reports more
    // than it is a defect (of the bound, or of the vendor's report). The
    // real amount is charged all the same; it is logged and counted, so a
    // limit passed this way is never silent.
    if (i < admission.hold.size() && amount > admission.hold.amount(i)) {
      over = true;
      spdlog::error(
          "budget: settled {} on {} though {} was held (a vendor counted more than the hold's bound)", amount,
          part->account.name, admission.hold.amount(i));
    }
    actual.push_back(amount);
  }
  if (over) settled_over_hold_.fetch_add(1, std::memory_order_relaxed);
  charges.reserve(charges.size() + actual.size());
  ledger_.settle(admission.hold, {actual.data(), actual.size()}, charges);
}

}  // namespace modelgw::budget
