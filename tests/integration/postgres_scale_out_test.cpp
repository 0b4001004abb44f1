// Several gateway processes on one PostgreSQL database, as a deployment that
// outgrew one machine runs (storage plugin `postgres`), and that database
// stopped and restarted under load. Each suite starts a throw-away cluster
// (tests/postgres/pg_cluster) and each test its own schema in it.
//
// What must hold across instances: a budget is never overspent; each
// idempotency key makes one upstream call and one usage record; the usage
// records are exactly the served requests; the audit chains stay valid with
// both instances writing. While the database is down: what needs it answers
// 503 storage_unavailable, what leases and caches cover is served, and usage
// reaches the database exactly once when it is back.
#include "harness/checks.h"
#include "harness/postgres_cluster.h"
#include "harness/stack.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;

// $1000 per million tokens: one token costs 1000 micro-USD.
constexpr const char* kScaleOutAliases =
    "  pricey: { provider: openai, model: \"gpt-4o-mini\", context_window: 128000, max_output_tokens: 1000, "
    "prices: { input: 1000, output: 1000 } }\n"
    // Slow enough that duplicates on both instances arrive while the first runs.
    "  slow: { provider: openai, model: \"gpt-4o-mini+delay_ms=400\", context_window: 128000, "
    "max_output_tokens: 1000, prices: { input: 1000, output: 1000 } }\n";

class PostgresSuite : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    try {
      cluster_ = std::make_unique<PostgresCluster>();
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }
  static void TearDownTestSuite() { cluster_.reset(); }

 protected:
  void SetUp() override {
    ASSERT_NE(cluster_, nullptr) << error_;
    fake_ = std::make_unique<FakeUpstream>(kProviderKey);
  }
  void TearDown() override {
    for (auto& gw : gateways_) gw.reset();
    fake_.reset();
  }

  // `count` gateways on this test's schema; the first creates tenant "shared"
  // and its key through the CLI (which reaches the same database).
  void start_gateways(std::size_t count, const std::string& schema, const std::string& extra_yaml = {},
                      int key_cache_ttl_ms = 100) {
    for (std::size_t i = 0; i < count; ++i) {
      GatewayOptions o;
      o.upstream_port = fake_->port();
      o.storage_yaml = cluster_->storage_yaml(schema);
      o.extra_catalog_yaml = kScaleOutAliases;
      o.extra_yaml = extra_yaml;
      o.key_cache_ttl_ms = key_cache_ttl_ms;
      gateways_.push_back(std::make_unique<Gateway>(o));
    }
    gateways_[0]->create_tenant("shared");
    key_ = gateways_[0]->create_key("shared", "chat usage:read budgets:read").key;
    for (auto& gw : gateways_) gw->start();
  }

  HttpResponse chat(std::size_t instance, const std::string& model, const std::string& text,
                    const Headers& extra = {}) {
    HttpRequest r;
    r.body = json{{"model", model}, {"messages", user_messages(text)}, {"max_tokens", 10}}.dump();
    r.headers = {{"Authorization", "Bearer " + key_}};
    for (const auto& h : extra) r.headers.push_back(h);
    return http_call(gateways_[instance % gateways_.size()]->port(), r);
  }

  // Every usage record of the tenant (pages of 1000, newest first), bounded.
  json all_usage(const std::string& query = {}) {
    json records = json::array();
    std::string cursor;
    for (int page = 0; page < 50; ++page) {
      const std::string path = "/v1/usage?limit=1000" + query + (cursor.empty() ? "" : "&cursor=" + cursor);
      const json body = http_get(gateways_[0]->port(), path, key_).json();
      if (!body.contains("data")) break;
      for (const auto& r : body["data"]) records.push_back(r);
      if (!body.value("has_more", false) || !body["next_cursor"].is_string()) break;
      cursor = body["next_cursor"].get<std::string>();
    }
    return records;
  }

  int provider_calls(const std::string& marker) const {
    int n = 0;
    for (const auto& r : fake_->requests()) {
      if (r["body"].dump().find(marker) != std::string::npos) ++n;
    }
    return n;
  }

  static inline std::unique_ptr<PostgresCluster> cluster_;
  static inline std::string error_;
  std::unique_ptr<FakeUpstream> fake_;
  std::vector<std::unique_ptr<Gateway>> gateways_;
  std::string key_;
};

class PostgresScaleOutTest : public PostgresSuite {};

TEST_F(PostgresScaleOutTest, TwoInstancesNeverOverspendAndRecordExactlyTheServedRequests) {
  start_gateways(2, "scale_budget");
  // "hi" costs the fake's 5 prompt and 2 completion tokens; the hold is the
  // gateway's own prompt count plus max_tokens 10. A limit of ten holds.
  const std::int64_t fake_cost = 7 * 1000;
  const std::int64_t limit = 10 * 20 * 1000;
  ASSERT_EQ(gateways_[0]
                ->cli({"budgets", "create", "--tenant", "shared", "--window", "day", "--limit", "0.2"})
                .exit_code,
            0);
  std::vector<HttpResponse> answers(60);
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < 16; ++t) {
    pool.emplace_back([&] {
      for (int i = next++; i < 60; i = next++) answers[static_cast<std::size_t>(i)] = chat(i, "pricey", "hi");
    });
  }
  for (auto& t : pool) t.join();
  std::set<std::string> served_ids;
  for (const auto& a : answers) {
    ASSERT_TRUE(a.status == 200 || a.status == 402) << a.status << " " << a.body;
    if (a.status == 200) served_ids.insert(a.json()["request_id"].get<std::string>());
  }
  const auto served = static_cast<std::int64_t>(served_ids.size());
  EXPECT_GE(served, 1);
  EXPECT_LT(served, 60) << "without holds every request would have been served";
  EXPECT_LE(served * fake_cost, limit);

  json records;
  json budget;
  eventually([&] {
    records = all_usage("&status=200");
    budget = http_get(gateways_[1]->port(), "/v1/budgets", key_).json()["data"][0];
    return records.size() == served_ids.size() && budget["spent_micros"] == served * fake_cost;
  });
  std::set<std::string> recorded_ids;
  for (const auto& r : records) EXPECT_TRUE(recorded_ids.insert(r["request_id"].get<std::string>()).second);
  EXPECT_EQ(recorded_ids, served_ids) << "one record per served request, none twice";
  EXPECT_EQ(budget["spent_micros"].get<std::int64_t>(), served * fake_cost);
  EXPECT_LE(budget["spent_micros"].get<std::int64_t>(), limit);
  // Every answered request has its record, the refused ones included.
  EXPECT_TRUE(eventually([&] { return all_usage().size() == answers.size(); })) << all_usage().size();

  const auto verify = gateways_[1]->cli({"audit", "verify"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_NE(verify.out.find("audit log intact"), std::string::npos) << verify.out;
}

TEST_F(PostgresScaleOutTest, EachIdempotencyKeyMakesOneUpstreamCallAcrossInstances) {
  start_gateways(2, "scale_idempotency");
  ASSERT_EQ(gateways_[0]->cli({"credits", "top-up", "--tenant", "shared", "--amount", "5.00"}).exit_code, 0);
  constexpr int kKeys = 8;
  constexpr int kCopies = 6;  // of each key, spread over both instances at once
  std::vector<HttpResponse> answers(kKeys * kCopies);
  std::vector<std::thread> pool;
  for (int k = 0; k < kKeys; ++k) {
    for (int c = 0; c < kCopies; ++c) {
      pool.emplace_back([&, k, c] {
        answers[static_cast<std::size_t>(k * kCopies + c)] =
            chat(static_cast<std::size_t>(c), "slow", "idem marker " + std::to_string(k),
                 {{"Idempotency-Key", "scale-key-" + std::to_string(k)}});
      });
    }
  }
  for (auto& t : pool) t.join();
  std::set<std::string> ids;
  for (int k = 0; k < kKeys; ++k) {
    const auto& first = answers[static_cast<std::size_t>(k * kCopies)];
    ASSERT_EQ(first.status, 200) << first.body;
    for (int c = 0; c < kCopies; ++c) {
      const auto& a = answers[static_cast<std::size_t>(k * kCopies + c)];
      ASSERT_EQ(a.status, 200) << a.body;
      EXPECT_EQ(a.body, first.body) << "every copy gets the one answer, byte for byte";
    }
    ids.insert(first.json()["request_id"].get<std::string>());
    EXPECT_EQ(provider_calls("idem marker " + std::to_string(k)), 1) << "key " << k;
  }
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(kKeys));
  json records;
  eventually([&] { return (records = all_usage()).size() >= ids.size(); });
  std::this_thread::sleep_for(300ms);  // a record that should not exist would have arrived
  records = all_usage();
  std::set<std::string> recorded;
  for (const auto& r : records) recorded.insert(r["request_id"].get<std::string>());
  EXPECT_EQ(records.size(), ids.size()) << "one usage record per key";
  EXPECT_EQ(recorded, ids);
  const auto verify = gateways_[0]->cli({"audit", "verify"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
}

TEST_F(PostgresScaleOutTest, ARateLimitHoldsAcrossTwoInstances) {
  start_gateways(2, "scale_rate");
  auto set = gateways_[0]->cli(
      {"tenants", "settings", "shared", "--set", R"({"rate_limits": {"tenant_requests_per_minute": 10}})"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  std::this_thread::sleep_for(300ms);
  // Not across a minute boundary: the window would reset mid-test.
  for (int i = 0; i < 60 && unix_ms_now() % 60000 > 40000; ++i) std::this_thread::sleep_for(500ms);
  std::vector<int> statuses(30, 0);
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < 6; ++t) {
    pool.emplace_back([&] {
      for (int i = next++; i < 30; i = next++)
        statuses[static_cast<std::size_t>(i)] = chat(i, "pricey", "rate").status;
    });
  }
  for (auto& t : pool) t.join();
  int served = 0;
  for (int s : statuses) {
    EXPECT_TRUE(s == 200 || s == 429) << s;
    served += s == 200 ? 1 : 0;
  }
  EXPECT_LE(served, 10);
  EXPECT_GE(served, 8) << "near the limit leases shrink to one request, so little is stranded";
}

class PostgresMigrateTest : public PostgresSuite {};

TEST_F(PostgresMigrateTest, MigrateBringsAnEmptySchemaUpWhenStartIsToldNotTo) {
  GatewayOptions o;
  o.upstream_port = fake_->port();
  o.storage_yaml = cluster_->storage_yaml("migrate_step") + "    migrate: false\n";
  Gateway gw(o);
  const auto refused = gw.cli({"tenants", "list"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("modelgw migrate"), std::string::npos) << refused.err;
  const auto migrated = gw.cli({"migrate"});
  ASSERT_EQ(migrated.exit_code, 0) << migrated.err;
  EXPECT_NE(migrated.out.find("schema up to date"), std::string::npos) << migrated.out;
  const auto again = gw.cli({"migrate"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  gw.create_tenant("after-migrate");
  gw.start();
}

TEST_F(PostgresMigrateTest, AnUnreachableDatabaseIsAClearErrorWithoutThePassword) {
  GatewayOptions o;
  o.upstream_port = fake_->port();
  o.storage_yaml =
      "storage:\n  plugin: postgres\n  options:\n    dsn: \"postgresql://modelgw:s3cretpw@127.0.0.1:" +
      std::to_string(free_port()) + "/modelgw\"\n    connect_timeout_ms: 1000\n";
  Gateway gw(o);
  const auto r = gw.cli({"tenants", "list"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot reach"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("s3cretpw"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("s3cretpw"), std::string::npos) << r.out;
}

class PostgresFaultTest : public PostgresSuite {};

TEST_F(PostgresFaultTest, StoppedAndRestartedUnderLoadLosesNothingAndRecordsEachRequestOnce) {
  // Keys and tenants cached for a minute, and a credit account large enough
  // that one lease covers the whole test: what can be served from memory is.
  start_gateways(1, "fault_restart", {}, 60000);
  ASSERT_EQ(gateways_[0]->cli({"credits", "top-up", "--tenant", "shared", "--amount", "50.00"}).exit_code, 0);
  const auto other_key = gateways_[0]->create_key("shared", "chat usage:read").key;
  std::set<std::string> served;
  for (int i = 0; i < 5; ++i) {
    const auto a = chat(0, "pricey", "before " + std::to_string(i));
    ASSERT_EQ(a.status, 200) << a.body;
    served.insert(a.json()["request_id"].get<std::string>());
  }

  cluster_->halt();
  // The load balancer is told: not ready while storage cannot be reached
  // (the probe's answer is reused for at most a second).
  json ready;
  EXPECT_TRUE(eventually(
      [&] {
        const auto r = http_get(gateways_[0]->port(), "/readyz");
        ready = r.json();
        return r.status == 503 && ready["failed"] == json::array({"storage"});
      },
      5000ms))
      << ready.dump();
  EXPECT_EQ(http_get(gateways_[0]->port(), "/healthz").status, 200) << "alive all the same";
  int served_while_down = 0;
  for (int i = 0; i < 10; ++i) {
    const auto a = chat(0, "pricey", "down " + std::to_string(i));
    ASSERT_TRUE(a.status == 200 || a.status == 503) << a.status << " " << a.body;
    if (a.status == 200) {
      ++served_while_down;
      served.insert(a.json()["request_id"].get<std::string>());
    } else {
      EXPECT_EQ(a.json()["error"]["code"], "storage_unavailable") << a.body;
    }
  }
  EXPECT_GT(served_while_down, 0) << "a cached key and a live lease need no database";
  // A key never seen needs the database: a retryable 503 with a clear code.
  HttpRequest cold;
  cold.body = chat_body("pricey", "cold key");
  cold.headers = {{"Authorization", "Bearer " + other_key}};
  const auto refused = http_call(gateways_[0]->port(), cold);
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(refused.json()["error"]["code"], "storage_unavailable") << refused.body;
  EXPECT_EQ(refused.header("retry-after"), "1");
  const auto usage_down = http_get(gateways_[0]->port(), "/v1/usage", key_);
  EXPECT_EQ(usage_down.status, 503) << usage_down.body;

  cluster_->restart();
  // The gateway reconnects by itself; the journaled records arrive once.
  EXPECT_TRUE(eventually([&] { return http_call(gateways_[0]->port(), cold).status == 200; }, 20000ms));
  EXPECT_TRUE(eventually([&] { return http_get(gateways_[0]->port(), "/readyz").status == 200; }, 5000ms));
  json records;
  EXPECT_TRUE(eventually(
      [&] {
        records = all_usage("&status=200");
        std::set<std::string> ids;
        for (const auto& r : records) ids.insert(r["request_id"].get<std::string>());
        return std::includes(ids.begin(), ids.end(), served.begin(), served.end());
      },
      20000ms));
  std::this_thread::sleep_for(500ms);
  records = all_usage();
  std::map<std::string, int> seen;
  for (const auto& r : records) ++seen[r["request_id"].get<std::string>()];
  for (const auto& id : served) EXPECT_EQ(seen[id], 1) << id << " recorded " << seen[id] << " times";
  for (const auto& [id, n] : seen) EXPECT_EQ(n, 1) << id;
  const auto verify = gateways_[0]->cli({"audit", "verify"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
}

TEST_F(PostgresFaultTest, ConnectionsKilledMidTrafficLeaveNothingHalfAppliedAndReconnect) {
  start_gateways(1, "fault_kill", {}, 60000);
  ASSERT_EQ(gateways_[0]->cli({"credits", "top-up", "--tenant", "shared", "--amount", "50.00"}).exit_code, 0);
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0};
  std::vector<std::thread> load;
  std::mutex ids_mutex;
  std::set<std::string> served;
  for (int t = 0; t < 4; ++t) {
    load.emplace_back([&, t] {
      for (int i = 0; i < 200 && !stop; ++i) {
        const auto a = chat(0, "pricey", "kill " + std::to_string(t) + " " + std::to_string(i));
        if (a.status == 200) {
          ++ok;
          std::lock_guard lock(ids_mutex);
          served.insert(a.json()["request_id"].get<std::string>());
        }
      }
    });
  }
  // Cut every gateway connection a few times while requests and usage writes run.
  for (int round = 0; round < 3; ++round) {
    std::this_thread::sleep_for(300ms);
    cluster_->sql(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'modelgw' "
        "AND pid <> pg_backend_pid()");
  }
  std::this_thread::sleep_for(300ms);
  stop = true;
  for (auto& t : load) t.join();
  ASSERT_GT(ok.load(), 0);
  json records;
  EXPECT_TRUE(eventually(
      [&] {
        records = all_usage("&status=200");
        return records.size() >= served.size();
      },
      20000ms));
  std::map<std::string, int> seen;
  for (const auto& r : records) ++seen[r["request_id"].get<std::string>()];
  for (const auto& id : served) EXPECT_EQ(seen[id], 1) << id;
  // The rollups agree with the records: no insert was half applied.
  const json totals = http_get(gateways_[0]->port(), "/v1/usage?status=200&limit=1", key_).json()["totals"];
  std::int64_t cost = 0;
  for (const auto& r : records) cost += r["cost_micros"].get<std::int64_t>();
  EXPECT_EQ(totals["cost_micros"].get<std::int64_t>(), cost);
  EXPECT_EQ(totals["requests"].get<std::int64_t>(), static_cast<std::int64_t>(records.size()));
}

}  // namespace
}  // namespace it
