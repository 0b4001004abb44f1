// The spend step of a chat request, between routing and the upstream call:
// rate limits (requests and tokens per minute) and money (budgets of the
// tenant, of its feature, of its key, and its credit account) are held in one
// atomic step, before anything is sent upstream, for the most the request can
// cost. The output limit that hold covers is what the upstream is told, so a
// vendor cannot spend past it. After the response, settle() turns the hold
// into the real amounts, carried to the store as charges of the usage record.
#pragma once

#include "auth/principal.h"
#include "budget/ledger.h"
#include "budget/tenant_spend.h"
#include "errors/api_error.h"
#include "http/rate_limit_fields.h"
#include "net/blocking_pool.h"

#include <modelgw/pricing.h>

#include <boost/container/small_vector.hpp>

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace modelgw::budget {

struct SpendRequest {
  const auth::Principal* principal = nullptr;
  const TenantSpend* spend = nullptr;
  std::string_view feature;                       // X-Feature; empty for none
  std::int64_t prompt_tokens = 0;                 // counted for the route's models (the most of them)
  bool prompt_bounded = false;                    // prompt_tokens is an upper bound, not the exact count
  std::optional<std::int64_t> client_max_tokens;  // what the client asked for, if anything
  std::int64_t default_output_tokens = 0;         // the output size when the client set none
  std::int64_t choices = 1;                       // n: completions, each up to the output size
  pricing::Prices prices;                         // the dearest the route may reach
  // Requests per minute: only those (admit_requests); or all but those,
  // which the request holds already.
  enum class Parts { all, requests_only, all_but_requests } parts = Parts::all;
};

struct Admission {
  using Kind = SpendPart::Kind;
  static constexpr Kind money = SpendPart::money;
  static constexpr Kind requests = SpendPart::requests;
  static constexpr Kind tokens = SpendPart::tokens;
  // One per draw of `hold`, in order; they point into the request's
  // TenantSpend, which the request keeps while it keeps this.
  boost::container::small_vector<const SpendPart*, 8> parts;
  Hold hold;
  std::int64_t output_tokens = 0;  // the output limit the hold covers, per choice
  std::int64_t hold_micros = 0;    // the most the request may cost
  bool clamped = false;            // the client set no limit and output_tokens is less than the default
  std::optional<errors::ApiError> refusal;
  std::string reason;  // BUDGET_EXCEEDED, CREDIT_INSUFFICIENT or RATE_LIMITED with a refusal
  // For a money refusal: the exhausted account ("budget:17") and the start
  // of its window (the audit log records the first refusal per window).
  std::string exhausted_account;
  std::int64_t exhausted_window_start_unix_ms = 0;
  // The x-ratelimit-* standing of the tightest limit of each kind (a 429's
  // Retry-After is in refusal), for the response's head.
  http::RateLimitFields rate_limits;
  bool holds_money() const;
  // Money or tokens per minute: output the vendor must be told the limit of.
  bool holds_output() const;
};

struct AdmissionOptions {
  std::int64_t min_output_tokens = 16;  // a clamp that leaves fewer output tokens refuses instead
};

class SpendControl {
 public:
  SpendControl(Ledger& ledger, net::BlockingPool& blocking, AdmissionOptions options,
               Ledger::Clock now_unix_ms)
      : ledger_(ledger), blocking_(blocking), options_(options), now_(std::move(now_unix_ms)) {}

  // Holds what the request may cost, or says why not (402, 429; 503 when the
  // store cannot be reached for a lease: nothing is ever served without a hold).
  net::Task<Admission> admit(SpendRequest request);
  // admit() while this process's leases cover the request, which is nearly
  // always: no coroutine, no store call. Nothing (and nothing held) when a
  // lease must grow first: then co_await admit().
  std::optional<Admission> admit_now(const SpendRequest& request);
  // The request for the requests-per-minute limits alone (admit_requests).
  static SpendRequest requests_only(const auth::Principal& principal, const TenantSpend& spend);
  // The requests-per-minute limits alone, before any other work on the
  // request, so a request refused later (PII, money) still counts and no
  // tenant grows a table faster than its rate allows. admit() then with
  // Parts::all_but_requests.
  net::Task<Admission> admit_requests(const auth::Principal& principal, const TenantSpend& spend);

  // The response ended: settles the hold at the real cost and tokens; the
  // charges go on the usage record. A refused or failed request releases.
  void settle(Admission& admission, std::int64_t cost_micros, std::int64_t total_tokens,
              std::vector<mgw_ledger_charge>& charges);
  void release(Admission& admission) { ledger_.release(admission.hold); }
  // Settles whose real amount passed what was held (logged one by one): the
  // hold's bound failed. modelgw_spend_settled_over_hold_total.
  std::uint64_t settled_over_hold() const { return settled_over_hold_.load(std::memory_order_relaxed); }

 private:
  // Where an admission is between rounds (admission.cpp).
  struct Rounds {
    std::int64_t output = 0;  // per choice; lowered by a clamp
    std::int64_t choices = 1;
    bool client_set = false;
    bool money = false;
    int round = 0;
    int rounds = 0;
    std::size_t short_index = 0;  // the draw whose lease a refill is for
    std::int64_t needed = 0;      // what that lease must have free
    std::int64_t micros = 0;      // what the last round tried to hold
  };
  // Picks the ledgers that apply; false when none does (nothing to hold).
  static bool begin(const SpendRequest& request, Admission& admission, Rounds& rounds);
  // One round in memory: true when decided (held, or refused after the last
  // round); false when the draw at rounds.short_index needs a refill.
  bool try_round(const SpendRequest& request, Admission& admission, Rounds& rounds);
  // After that refill: true when decided (refused); false for another round
  // (refilled, or the output clamped to what fits).
  bool after_refill(const SpendRequest& request, Admission& admission, Rounds& rounds, bool refilled);
  static void draws_of(const Admission& admission, std::int64_t tokens, std::int64_t micros,
                       boost::container::small_vector<Draw, 8>& draws);
  void rate_headers(Admission& admission, std::span<const std::int64_t> remaining);
  errors::ApiError budget_refusal(const SpendPart& part, std::int64_t needed, Admission& admission);
  errors::ApiError rate_refusal(const SpendPart& part, Admission& admission);
  // A tokens-per-minute limit smaller than the request needs even in an
  // empty minute: retrying cannot help (422, not 429).
  errors::ApiError never_fits(const SpendPart& part, const SpendRequest& request, std::int64_t output,
                              Admission& admission);

  Ledger& ledger_;
  net::BlockingPool& blocking_;
  AdmissionOptions options_;
  Ledger::Clock now_;
  std::atomic<std::uint64_t> settled_over_hold_{0};
};

}  // namespace modelgw::budget
