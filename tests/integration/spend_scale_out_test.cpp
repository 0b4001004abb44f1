// Two gateway processes on one SQLite file, as a scaled-out deployment runs:
// a budget is never overspent and a rate limit never exceeded, however the
// requests spread over the instances, because no in-process counter is the
// authority (each instance spends leases taken from the store).
#include "harness/checks.h"
#include "harness/stack.h"
#include "harness/temp_dir.h"

#include <atomic>
#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;

class SpendScaleOutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_ = std::make_unique<FakeUpstream>(kProviderKey);
    dir_ = make_temp_dir("modelgw-scale");
    for (auto& gw : gateways_) {
      GatewayOptions o;
      o.upstream_port = fake_->port();
      o.db_path = dir_ + "/shared.db";
      o.extra_catalog_yaml =
          "  pricey: { provider: openai, model: \"gpt-4o-mini\", context_window: 128000, max_output_tokens: "
          "1000, "
          "prices: { input: 1000, output: 1000 } }\n";
      // Short leases: the test also shows a stopped instance's slice coming back.
      o.extra_yaml = "budget:\n  lease_ttl_ms: 3000\n  lease_idle_ms: 500\n";
      gw = std::make_unique<Gateway>(o);
    }
    gateways_[0]->create_tenant("shared");
    key_ = gateways_[0]->create_key("shared", "chat usage:read budgets:read").key;
    for (auto& gw : gateways_) gw->start();
  }

  void TearDown() override {
    for (auto& gw : gateways_) gw.reset();
    fake_.reset();
    std::filesystem::remove_all(dir_);
  }

  // `count` requests from `threads` threads, alternating between the two
  // instances; returns the statuses.
  std::vector<int> spread(int count, int threads, const std::string& text, std::int64_t max_tokens) {
    std::vector<int> statuses(static_cast<std::size_t>(count), 0);
    std::atomic<int> next{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        for (int i = next++; i < count; i = next++) {
          HttpRequest r;
          r.body =
              json{{"model", "pricey"}, {"messages", user_messages(text)}, {"max_tokens", max_tokens}}.dump();
          r.headers = {{"Authorization", "Bearer " + key_}};
          statuses[static_cast<std::size_t>(i)] =
              http_call(gateways_[static_cast<std::size_t>(i % 2)]->port(), r).status;
        }
      });
    }
    for (auto& t : pool) t.join();
    return statuses;
  }

  std::unique_ptr<FakeUpstream> fake_;
  std::string dir_;
  std::array<std::unique_ptr<Gateway>, 2> gateways_;
  std::string key_;
};

TEST_F(SpendScaleOutTest, FiftyConcurrentRequestsOnTwoInstancesNeverOverspendABudgetThatFitsTen) {
  // "hi" costs the fake's 5 prompt and 2 completion tokens; the hold is the
  // gateway's own prompt count plus max_tokens 10. A limit of ten holds.
  const std::string text = "hi";
  const std::int64_t fake_cost = 7 * 1000;
  const std::int64_t limit = 10 * 20 * 1000;  // ten holds of at most 20 tokens
  ASSERT_EQ(
      gateways_[0]
          ->cli({"budgets", "create", "--tenant", "shared", "--window", "day", "--limit",
                 std::to_string(limit / 1000000) + "." + std::to_string(limit % 1000000 + 1000000).substr(1)})
          .exit_code,
      0);
  const auto statuses = spread(50, 16, text, 10);
  int served = 0;
  for (int s : statuses) {
    EXPECT_TRUE(s == 200 || s == 402) << s;
    served += s == 200 ? 1 : 0;
  }
  EXPECT_GE(served, 1);
  EXPECT_LT(served, 50) << "without holds every request would have been served";
  EXPECT_LE(served * fake_cost, limit);

  // Every served request is charged exactly once: the budget's spend is the
  // sum of the records' costs, and never past the limit.
  json usage;
  json budget;
  for (int i = 0; i < 100; ++i) {
    usage = http_get(gateways_[1]->port(), "/v1/usage?status=200&limit=100", key_).json();
    budget = http_get(gateways_[0]->port(), "/v1/budgets", key_).json()["data"][0];
    if (usage["data"].size() == static_cast<std::size_t>(served) &&
        budget["spent_micros"] == usage["totals"]["cost_micros"]) {
      break;
    }
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_EQ(usage["data"].size(), static_cast<std::size_t>(served));
  for (const auto& rec : usage["data"]) EXPECT_EQ(rec["cost_micros"], fake_cost);
  EXPECT_EQ(budget["spent_micros"], usage["totals"]["cost_micros"]);
  EXPECT_LE(budget["spent_micros"].get<std::int64_t>(), limit);
  EXPECT_EQ(budget["spent_micros"].get<std::int64_t>(), served * fake_cost);
  const json refused = http_get(gateways_[0]->port(), "/v1/usage?status=402&limit=100", key_).json();
  EXPECT_EQ(refused["totals"]["cost_micros"], 0) << "a refused request is never charged";
}

TEST_F(SpendScaleOutTest, ARateLimitHoldsAcrossTwoInstances) {
  auto set = gateways_[0]->cli(
      {"tenants", "settings", "shared", "--set", R"({"rate_limits": {"tenant_requests_per_minute": 10}})"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  std::this_thread::sleep_for(300ms);
  for (int i = 0; i < 60 && unix_ms_now() % 60000 > 40000; ++i) std::this_thread::sleep_for(500ms);
  const auto statuses = spread(30, 6, "rate", 5);
  int served = 0;
  for (int s : statuses) {
    EXPECT_TRUE(s == 200 || s == 429) << s;
    served += s == 200 ? 1 : 0;
  }
  EXPECT_LE(served, 10);
  EXPECT_GE(served, 8) << "near the limit leases shrink to one request, so little is stranded";
}

TEST_F(SpendScaleOutTest, AStoppedInstanceGivesItsLeasesBack) {
  ASSERT_EQ(gateways_[0]
                ->cli({"budgets", "create", "--tenant", "shared", "--window", "month", "--limit", "10"})
                .exit_code,
            0);
  HttpRequest r;
  r.body = json{{"model", "pricey"}, {"messages", user_messages("lease")}, {"max_tokens", 10}}.dump();
  r.headers = {{"Authorization", "Bearer " + key_}};
  ASSERT_EQ(http_call(gateways_[0]->port(), r).status, 200);
  json before = http_get(gateways_[1]->port(), "/v1/budgets", key_).json()["data"][0];
  EXPECT_GT(before["reserved_micros"].get<std::int64_t>(), 0) << "instance 0 holds a slice";
  EXPECT_EQ(gateways_[0]->stop(), 0);
  json after;
  for (int i = 0; i < 100; ++i) {
    after = http_get(gateways_[1]->port(), "/v1/budgets", key_).json()["data"][0];
    if (after["reserved_micros"] == 0) break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(after["reserved_micros"], 0) << "returned at stop";
  EXPECT_GT(after["spent_micros"].get<std::int64_t>(), 0);
}

}  // namespace
}  // namespace it
