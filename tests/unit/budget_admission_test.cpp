// The spend step: which ledgers apply to a request, the hold, the 402 and 429
// answers with their messages and reasons, the clamp of an unset max_tokens,
// and settling.
#include "budget/admission.h"

#include "fake_lease_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

namespace {

using namespace modelgw;
using budget::Admission;
using budget::testing::FakeStore;

constexpr std::int64_t kNow = 1'795'516'200'000;  // 2026-11-24T10:30:00Z

struct AdmissionTest : ::testing::Test {
  std::atomic<std::int64_t> now{kNow};
  FakeStore store{[this] { return now.load(); }};
  budget::Ledger ledger{store, budget::LedgerOptions{30000, 5000, 10, "test"}, [this] { return now.load(); }};
  net::BlockingPool blocking{1};
  budget::SpendControl spend{ledger, blocking, budget::AdmissionOptions{16}, [this] { return now.load(); }};
  auth::Principal principal{7, "acme", 12, "chat", ""};
  budget::TenantSpend tenant;
  bool prepared = false;

  plugins::BudgetRow budget(std::int64_t id, std::string scope, std::string subject, std::string window,
                            std::int64_t limit) {
    return plugins::BudgetRow{id, 7, std::move(scope), std::move(subject), "", std::move(window), limit, 0};
  }

  // $1 per million tokens in and out: a token costs 1 micro-USD.
  budget::SpendRequest request(std::int64_t prompt, std::optional<std::int64_t> max_tokens,
                               std::string_view feature = {}) {
    budget::SpendRequest r;
    r.principal = &principal;
    r.spend = &tenant;
    r.feature = feature;
    r.prompt_tokens = prompt;
    r.client_max_tokens = max_tokens;
    r.default_output_tokens = 1000;
    r.prices = pricing::Prices{1'000'000, 1'000'000, 500'000};
    return r;
  }

  Admission admit(budget::SpendRequest r) {
    // Once, after a test has set the tenant's budgets and limits: admissions
    // point into the prepared parts.
    if (!prepared) tenant.prepare(7, "acme");
    prepared = true;
    net::asio::io_context io;
    std::promise<Admission> done;
    net::asio::co_spawn(io, spend.admit(r), [&](std::exception_ptr e, Admission a) {
      if (e) {
        done.set_exception(e);
      } else {
        done.set_value(std::move(a));
      }
    });
    io.run_for(std::chrono::seconds(10));
    return done.get_future().get();
  }

  // The field's value as the response head would carry it; "" without it.
  static std::string header(const Admission& a, const std::string& name) {
    std::string head;
    a.rate_limits.append_to(head);
    const std::string prefix = "\r\n" + name + ": ";
    const auto at = head.find(prefix);
    if (at == std::string::npos) return "";
    const auto from = at + prefix.size();
    return head.substr(from, head.find("\r\n", from) - from);
  }
};

TEST_F(AdmissionTest, NothingLimitsATenantWithoutBudgetsOrLimits) {
  auto a = admit(request(10, 20));
  EXPECT_FALSE(a.refusal);
  EXPECT_TRUE(a.parts.empty());
  EXPECT_TRUE(a.hold.empty());
  EXPECT_EQ(store.takes, 0);
}

TEST_F(AdmissionTest, HoldsPromptPlusMaxTokensAndSettlesTheRealCost) {
  tenant.budgets = {budget(1, "tenant", "", "month", 1'000'000)};
  auto a = admit(request(100, 50));
  ASSERT_FALSE(a.refusal) << a.refusal->message;
  EXPECT_EQ(a.hold_micros, 150);
  EXPECT_EQ(a.output_tokens, 50);
  EXPECT_FALSE(a.clamped);
  std::vector<mgw_ledger_charge> charges;
  spend.settle(a, 120, 120, charges);
  ASSERT_EQ(charges.size(), 1u);
  EXPECT_EQ(charges[0].amount, 120);
}

TEST_F(AdmissionTest, AClientLimitThatDoesNotFitIs402NamingTheBudgetAndItsReset) {
  tenant.budgets = {budget(1, "tenant", "", "day", 100)};
  auto a = admit(request(60, 50));
  ASSERT_TRUE(a.refusal);
  EXPECT_EQ(a.refusal->status, 402);
  EXPECT_EQ(a.refusal->code, "insufficient_credits");
  EXPECT_EQ(a.reason, "BUDGET_EXCEEDED");
  EXPECT_NE(a.refusal->message.find("daily budget of the tenant"), std::string::npos) << a.refusal->message;
  EXPECT_NE(a.refusal->message.find("resets at 2026-11-25T00:00:00Z"), std::string::npos)
      << a.refusal->message;
  EXPECT_TRUE(a.hold.empty());
}

TEST_F(AdmissionTest, NoClientLimitClampsTheOutputToWhatFits) {
  tenant.budgets = {budget(1, "tenant", "", "month", 500)};
  auto a = admit(request(100, std::nullopt));
  ASSERT_FALSE(a.refusal) << a.refusal->message;
  EXPECT_TRUE(a.clamped);
  EXPECT_EQ(a.output_tokens, 400);
  EXPECT_EQ(a.hold_micros, 500);
}

TEST_F(AdmissionTest, AClampBelowTheMinimumRefuses) {
  tenant.budgets = {budget(1, "tenant", "", "month", 110)};
  auto a = admit(request(100, std::nullopt));
  ASSERT_TRUE(a.refusal);
  EXPECT_EQ(a.refusal->status, 402);
}

TEST_F(AdmissionTest, TheCreditAccountSaysCreditInsufficient) {
  tenant.budgets = {budget(1, "credit", "", "none", 100)};
  auto a = admit(request(60, 50));
  ASSERT_TRUE(a.refusal);
  EXPECT_EQ(a.reason, "CREDIT_INSUFFICIENT");
  EXPECT_NE(a.refusal->message.find("credit account has"), std::string::npos) << a.refusal->message;
}

TEST_F(AdmissionTest, FeatureAndKeyBudgetsApplyOnlyToTheirFeatureAndKey) {
  tenant.budgets = {budget(1, "feature", "search", "day", 10), budget(2, "key", "99", "hour", 10)};
  auto other = admit(request(60, 50, "chat"));
  EXPECT_FALSE(other.refusal) << "neither the feature nor the key matches";
  auto search = admit(request(60, 50, "search"));
  ASSERT_TRUE(search.refusal);
  EXPECT_NE(search.refusal->message.find("feature 'search'"), std::string::npos) << search.refusal->message;
  principal.key_id = 99;
  auto keyed = admit(request(60, 50));
  ASSERT_TRUE(keyed.refusal);
  EXPECT_NE(keyed.refusal->message.find("API key 99"), std::string::npos) << keyed.refusal->message;
}

TEST_F(AdmissionTest, EveryBudgetMustHold) {
  tenant.budgets = {budget(1, "tenant", "", "month", 1'000'000), budget(2, "credit", "", "none", 100)};
  auto a = admit(request(60, 50));
  ASSERT_TRUE(a.refusal);
  EXPECT_EQ(a.reason, "CREDIT_INSUFFICIENT");
  EXPECT_EQ(ledger.remaining(budget::Account{"budget:1", budget::Window::month, 1'000'000}), 1'000'000)
      << "the refused request holds nothing on the budget that had room";
}

TEST_F(AdmissionTest, RequestsPerMinuteAreLimitedWithRetryAfterAndOpenAiHeaders) {
  tenant.rate_limits.tenant_requests = 2;
  now = kNow + 43'000;  // 17 s before the minute ends
  auto first = admit(request(10, 10));
  ASSERT_FALSE(first.refusal);
  EXPECT_EQ(header(first, "x-ratelimit-limit-requests"), "2");
  EXPECT_EQ(header(first, "x-ratelimit-remaining-requests"), "1");
  EXPECT_EQ(header(first, "x-ratelimit-reset-requests"), "17s");
  auto second = admit(request(10, 10));
  ASSERT_FALSE(second.refusal);
  auto third = admit(request(10, 10));
  ASSERT_TRUE(third.refusal);
  EXPECT_EQ(third.refusal->status, 429);
  EXPECT_EQ(third.refusal->code, "rate_limit_exceeded");
  EXPECT_EQ(third.reason, "RATE_LIMITED");
  EXPECT_EQ(third.refusal->retry_after_s, 17) << "sent as Retry-After";
  EXPECT_NE(third.refusal->message.find("retry in 17 seconds"), std::string::npos) << third.refusal->message;
  now = kNow + 60'000;  // the next minute
  auto fourth = admit(request(10, 10));
  EXPECT_FALSE(fourth.refusal);
}

TEST_F(AdmissionTest, TokensPerMinuteCountTheHoldAndAreCorrectedAtSettle) {
  tenant.rate_limits.key_tokens = 100;
  auto a = admit(request(30, 60));  // holds 90 tokens
  ASSERT_FALSE(a.refusal);
  EXPECT_EQ(header(a, "x-ratelimit-limit-tokens"), "100");
  auto b = admit(request(30, 60));
  ASSERT_TRUE(b.refusal) << "90 + 90 tokens do not fit in 100";
  std::vector<mgw_ledger_charge> charges;
  spend.settle(a, 0, 40, charges);
  auto c = admit(request(30, 30));
  EXPECT_FALSE(c.refusal) << "40 used + 60 held fit";
}

// Each round refills one short account: a tenant with more limits than
// rounds must still be served on a cold ledger (first request, or after its
// slices went back idle), not refused with a rate limit it is far below.
TEST_F(AdmissionTest, ManyLimitsOnAColdLedgerAreAllRefilledBeforeAnyRefusal) {
  tenant.budgets = {budget(1, "tenant", "", "month", 1'000'000), budget(2, "credit", "", "none", 1'000'000),
                    budget(3, "key", "12", "day", 1'000'000)};
  tenant.rate_limits.tenant_requests = 100'000'000;
  tenant.rate_limits.tenant_tokens = 100'000'000;
  tenant.rate_limits.key_requests = 100'000'000;
  tenant.rate_limits.key_tokens = 100'000'000;
  auto a = admit(request(10, 10));
  EXPECT_FALSE(a.refusal) << a.refusal->message;
  EXPECT_GE(a.parts.size(), 7u);
}

// admit_now is admit() without a coroutine while the leases cover the
// request: on a cold ledger it holds nothing and says so; once admit() has
// grown the leases, it holds the same as admit() would, headers and all.
TEST_F(AdmissionTest, AdmitNowHoldsInMemoryOrNothingWhenALeaseMustGrow) {
  tenant.budgets = {budget(1, "tenant", "", "month", 1'000'000)};
  tenant.rate_limits.key_requests = 1000;
  tenant.prepare(7, "acme");
  prepared = true;
  EXPECT_FALSE(spend.admit_now(request(10, 10))) << "a cold ledger has no lease yet";
  EXPECT_EQ(store.takes, 0) << "admit_now never calls the store";
  auto first = admit(request(10, 10));
  ASSERT_FALSE(first.refusal) << first.refusal->message;
  const int takes = store.takes;
  auto now_held = spend.admit_now(request(10, 10));
  ASSERT_TRUE(now_held);
  ASSERT_FALSE(now_held->refusal);
  EXPECT_EQ(store.takes, takes);
  EXPECT_EQ(now_held->hold_micros, first.hold_micros);
  EXPECT_EQ(now_held->parts.size(), first.parts.size());
  EXPECT_EQ(header(*now_held, "x-ratelimit-limit-requests"), "1000");
  EXPECT_EQ(header(*now_held, "x-ratelimit-remaining-requests"), "998");
  // A tenant without limits is decided at once, with nothing held.
  budget::TenantSpend free_tenant;
  auto r = request(10, 10);
  r.spend = &free_tenant;
  auto none = spend.admit_now(r);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->hold.empty());
  EXPECT_FALSE(none->refusal);
}

// The key's rate-limit accounts are built once per key and shared by its
// requests: one account per key, so every request of a key counts on it.
TEST_F(AdmissionTest, AKeysRateLimitAccountsAreBuiltOnceAndAreItsOwn) {
  EXPECT_TRUE(tenant.key_parts(12).empty()) << "no key limits, no parts";
  tenant.rate_limits.key_requests = 5;
  tenant.rate_limits.key_tokens = 50;
  const auto parts = tenant.key_parts(12);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].kind, budget::SpendPart::requests);
  EXPECT_EQ(parts[0].account.name, "rl:key:12:requests");
  EXPECT_EQ(parts[0].account.limit, 5);
  EXPECT_EQ(parts[1].account.name, "rl:key:12:tokens");
  EXPECT_EQ(parts[0].who, "API key 12");
  EXPECT_EQ(tenant.key_parts(12).data(), parts.data()) << "built once";
  EXPECT_EQ(tenant.key_parts(13)[0].account.name, "rl:key:13:requests");
  EXPECT_TRUE(tenant.key_parts(0).empty()) << "a principal without a key (a JWT) has no key limits";
}

TEST_F(AdmissionTest, AStoreThatCannotBeReachedIs503NotAFreeRequest) {
  tenant.budgets = {budget(1, "tenant", "", "month", 1'000'000)};
  store.fail_take = true;
  auto a = admit(request(10, 10));
  ASSERT_TRUE(a.refusal);
  EXPECT_EQ(a.refusal->status, 503);
}

}  // namespace

namespace {

TEST_F(AdmissionTest, NHoldsItsOutputOncePerChoice) {
  tenant.budgets = {budget(1, "tenant", "", "month", 1'000'000)};
  auto r = request(100, 50);
  r.choices = 4;
  auto a = admit(r);
  ASSERT_FALSE(a.refusal) << a.refusal->message;
  EXPECT_EQ(a.hold_micros, 100 + 4 * 50) << "the prompt once, the output per choice";
  EXPECT_EQ(a.output_tokens, 50) << "max_tokens stays per choice";
}

TEST_F(AdmissionTest, NClampsAnUnsetOutputToWhatEveryChoiceCanHave) {
  tenant.budgets = {budget(1, "tenant", "", "month", 1100)};
  auto r = request(100, std::nullopt);
  r.choices = 4;
  auto a = admit(r);
  ASSERT_FALSE(a.refusal) << a.refusal->message;
  EXPECT_TRUE(a.clamped);
  EXPECT_EQ(a.output_tokens, 250) << "(1100 - 100) / 4";
  EXPECT_LE(a.hold_micros, 1100);
}

TEST_F(AdmissionTest, ATokensPerMinuteLimitClampsAnUnsetOutput) {
  tenant.rate_limits.tenant_tokens = 500;
  auto a = admit(request(100, std::nullopt));  // would hold 100 + 1000
  ASSERT_FALSE(a.refusal) << a.refusal->message;
  EXPECT_TRUE(a.clamped);
  EXPECT_EQ(a.output_tokens, 400);
  EXPECT_TRUE(a.holds_output());
}

TEST_F(AdmissionTest, ATokensPerMinuteLimitNoMinuteCanHoldIs422NamingMaxTokens) {
  tenant.rate_limits.tenant_tokens = 300;
  auto a = admit(request(100, 400));
  ASSERT_TRUE(a.refusal);
  EXPECT_EQ(a.refusal->status, 422);
  EXPECT_EQ(a.refusal->code, "max_tokens_exceeds_rate_limit");
  EXPECT_EQ(a.refusal->param, "max_tokens");
  EXPECT_FALSE(a.refusal->retryable);
  EXPECT_NE(a.refusal->message.find("at most 200"), std::string::npos) << a.refusal->message;
  // A prompt that leaves less than the minimum output: the same, unset or not.
  auto b = admit(request(290, std::nullopt));
  ASSERT_TRUE(b.refusal);
  EXPECT_EQ(b.refusal->status, 422);
  // A limit only others' holds fill is a 429 to retry.
  auto c = admit(request(100, 150));
  ASSERT_FALSE(c.refusal);
  auto d = admit(request(100, 150));
  ASSERT_TRUE(d.refusal);
  EXPECT_EQ(d.refusal->status, 429);
}

TEST_F(AdmissionTest, ASettlePastTheHoldIsChargedAndCounted) {
  tenant.budgets = {budget(1, "tenant", "", "month", 1'000'000)};
  auto a = admit(request(100, 50));
  ASSERT_FALSE(a.refusal);
  std::vector<mgw_ledger_charge> charges;
  EXPECT_EQ(spend.settled_over_hold(), 0u);
  spend.settle(a, 400, 400, charges);
  EXPECT_EQ(spend.settled_over_hold(), 1u);
  ASSERT_EQ(charges.size(), 1u);
  EXPECT_EQ(charges[0].amount, 400) << "what the vendor reported is charged all the same";
}

}  // namespace
