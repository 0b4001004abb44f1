// ABI 1.2 in every store: budgets, ledger leases (the invariant that no
// interleaving of processes passes a limit), charges settled with usage
// records, usage pages by seq, and totals from the rollups equal to a scan.
#include "fixture.h"

#include <atomic>
#include <chrono>
#include <map>
#include <random>

namespace storage_test {
namespace {

std::int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

class SpendStoreTest : public StorageTest {
 protected:
  void SetUp() override {
    StorageTest::SetUp();
    ASSERT_EQ(h().on_tenant_create(storage(), mgw::str("acme"), 1000, &tenant_, nullptr), MGW_OK);
  }

  mgw_status create_budget(const std::string& scope, const std::string& subject, const std::string& window,
                           std::int64_t limit, std::int64_t* id, std::int64_t tenant = 0) {
    mgw_budget_record b{};
    b.struct_size = sizeof b;
    b.tenant_id = tenant == 0 ? tenant_ : tenant;
    b.scope = mgw::str(scope);
    b.subject = mgw::str(subject);
    b.window = mgw::str(window);
    b.limit_micros = limit;
    return h().on_budget_create(storage(), &b, id, nullptr);
  }

  mgw_lease_grant take(mgw_storage* s, const std::string& account, std::int64_t limit, std::int64_t want,
                       std::int64_t at_least, std::int64_t lease = 0, std::int64_t expires = 0) {
    mgw_lease_request r{};
    r.struct_size = sizeof r;
    r.account = mgw::str(account);
    r.window_start_unix_ms = 100;
    r.limit = limit;
    r.lease_id = lease;
    r.want = want;
    r.at_least = at_least;
    r.expires_unix_ms = expires == 0 ? now_ms() + 60000 : expires;
    r.holder = mgw::str("test");
    mgw_lease_grant g{};
    g.struct_size = sizeof g;
    EXPECT_EQ(h().on_lease_take(s, &r, &g, nullptr), MGW_OK);
    return g;
  }

  mgw_ledger_state read(const std::string& account) {
    mgw_ledger_state st{};
    st.struct_size = sizeof st;
    EXPECT_EQ(h().on_ledger_read(storage(), mgw::str(account), 100, now_ms(), &st, nullptr), MGW_OK);
    return st;
  }

  void charge(mgw_storage* s, std::int64_t lease, std::int64_t amount, const std::string& id) {
    Usage u;
    u.request_id = id;
    u.tenant_id = tenant_;
    u.created_unix_ms = now_ms();
    u.cost_micros = amount;
    u.charges = {mgw_ledger_charge{lease, amount}};
    const auto r = u.record();
    ASSERT_EQ(h().on_usage_insert(s, &r, 1, nullptr), MGW_OK);
  }

  int64_t tenant_ = 0;
};

TEST_P(SpendStoreTest, BudgetsAreCreatedListedChangedAndDeleted) {
  std::int64_t month = 0, feature = 0, credit = 0;
  ASSERT_EQ(create_budget("tenant", "", "month", 5'000'000, &month), MGW_OK);
  ASSERT_EQ(create_budget("feature", "search", "day", 1'000'000, &feature), MGW_OK);
  ASSERT_EQ(create_budget("credit", "", "none", 2'000'000, &credit), MGW_OK);
  std::int64_t again = 0;
  EXPECT_EQ(create_budget("tenant", "", "month", 1, &again), MGW_CONFLICT);
  EXPECT_EQ(create_budget("tenant", "", "week", 1, &again), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(create_budget("galaxy", "", "day", 1, &again), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(create_budget("feature", "", "day", 1, &again), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(create_budget("credit", "", "day", 1, &again), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(create_budget("tenant", "", "day", -1, &again), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(create_budget("tenant", "", "hour", 1, &again, 999), MGW_INVALID_ARGUMENT);

  RowRecorder rows;
  ASSERT_EQ(h().on_budget_list(storage(), tenant_, &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.budgets.size(), 3u);
  EXPECT_EQ(rows.budgets[1].scope, "feature");
  EXPECT_EQ(rows.budgets[1].subject, "search");
  EXPECT_EQ(rows.budgets[1].window, "day");

  std::int64_t limit = 0;
  ASSERT_EQ(h().on_budget_set_limit(storage(), credit, 0, 500'000, &limit, nullptr), MGW_OK);
  EXPECT_EQ(limit, 2'500'000) << "a top-up adds";
  ASSERT_EQ(h().on_budget_set_limit(storage(), month, 1, 7'000'000, &limit, nullptr), MGW_OK);
  EXPECT_EQ(limit, 7'000'000);
  EXPECT_EQ(h().on_budget_set_limit(storage(), credit, 0, INT64_MAX, &limit, nullptr), MGW_INVALID_ARGUMENT)
      << "overflow is refused, not wrapped";
  EXPECT_EQ(h().on_budget_set_limit(storage(), month, 0, -8'000'000, &limit, nullptr), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h().on_budget_set_limit(storage(), 424242, 1, 1, &limit, nullptr), MGW_NOT_FOUND);
  EXPECT_EQ(h().on_budget_delete(storage(), feature, nullptr), MGW_OK);
  EXPECT_EQ(h().on_budget_delete(storage(), feature, nullptr), MGW_NOT_FOUND);
}

TEST_P(SpendStoreTest, LeasesNeverGrantPastTheLimitAndShrinkNearIt) {
  auto a = take(storage(), "budget:1", 1000, 400, 100);
  EXPECT_EQ(a.added, 400);
  auto b = take(storage(), "budget:1", 1000, 400, 100);
  EXPECT_EQ(b.added, 400);
  EXPECT_NE(a.lease_id, b.lease_id);
  auto c = take(storage(), "budget:1", 1000, 400, 100);
  EXPECT_EQ(c.added, 200) << "only what is left";
  EXPECT_EQ(c.reserved, 1000);
  auto d = take(storage(), "budget:1", 1000, 400, 1);
  EXPECT_EQ(d.added, 0);
  // Growing a lease keeps its id.
  auto grown = take(storage(), "budget:2", 1000, 100, 100);
  auto more = take(storage(), "budget:2", 1000, 100, 100, grown.lease_id);
  EXPECT_EQ(more.lease_id, grown.lease_id);
  EXPECT_EQ(more.granted, 200);
}

TEST_P(SpendStoreTest, ChargesSettleWithTheRecordAndReturnedLeasesFreeTheRest) {
  auto lease = take(storage(), "budget:3", 1000, 600, 1);
  charge(storage(), lease.lease_id, 250, "req-1");
  auto st = read("budget:3");
  EXPECT_EQ(st.spent, 250);
  EXPECT_EQ(st.reserved, 350);
  // Returned keeping what was settled plus 100 still on its way.
  ASSERT_EQ(h().on_lease_return(storage(), lease.lease_id, 350, nullptr), MGW_OK);
  st = read("budget:3");
  EXPECT_EQ(st.reserved, 100);
  charge(storage(), lease.lease_id, 100, "req-2");
  st = read("budget:3");
  EXPECT_EQ(st.spent, 350);
  EXPECT_EQ(st.reserved, 0);
  EXPECT_EQ(take(storage(), "budget:3", 1000, 1000, 1).added, 650);
}

// One batch settles every lease it charges, several records to a lease
// adding up; a charge on a lease that no longer exists is not counted on any
// window, and the records are kept all the same.
TEST_P(SpendStoreTest, ABatchSettlesEachLeaseItChargesAndKeepsARecordWhoseLeaseIsGone) {
  const auto budget = take(storage(), "budget:5", 1000, 500, 1);
  const auto credit = take(storage(), "credit:5", 1000, 500, 1);
  Usage first;
  first.request_id = "req-batch-1";
  first.tenant_id = tenant_;
  first.created_unix_ms = now_ms();
  first.cost_micros = 100;
  first.charges = {mgw_ledger_charge{budget.lease_id, 100}, mgw_ledger_charge{credit.lease_id, 40}};
  Usage second = first;
  second.request_id = "req-batch-2";
  second.charges = {mgw_ledger_charge{budget.lease_id, 20}, mgw_ledger_charge{credit.lease_id + 1000, 7}};
  const mgw_usage_record records[] = {first.record(), second.record()};
  ASSERT_EQ(h().on_usage_insert(storage(), records, 2, nullptr), MGW_OK);
  EXPECT_EQ(read("budget:5").spent, 120);
  EXPECT_EQ(read("budget:5").reserved, 380);
  EXPECT_EQ(read("credit:5").spent, 40);
  EXPECT_EQ(read("credit:5").reserved, 460);
  // Kept: the same request ids again are not stored twice, and charge nothing.
  ASSERT_EQ(h().on_usage_insert(storage(), records, 2, nullptr), MGW_OK);
  EXPECT_EQ(read("budget:5").spent, 120);
  EXPECT_EQ(read("credit:5").spent, 40);
}

TEST_P(SpendStoreTest, ALapsedLeaseFreesWhatItHeld) {
  auto dead = take(storage(), "budget:4", 1000, 900, 1, 0, now_ms() - 1);  // a process that died
  EXPECT_EQ(dead.added, 900);
  EXPECT_EQ(read("budget:4").reserved, 0);
  EXPECT_EQ(take(storage(), "budget:4", 1000, 1000, 1).added, 1000);
  // Renewing a lapsed lease does not bring it back.
  const std::int64_t id = dead.lease_id;
  ASSERT_EQ(h().on_lease_renew(storage(), &id, 1, now_ms() + 60000, nullptr), MGW_OK);
  EXPECT_EQ(read("budget:4").reserved, 1000);
}

TEST_P(SpendStoreTest, TwoProcessesTakingAndSettlingConcurrentlyNeverPassTheLimit) {
  auto other = open();
  constexpr std::int64_t kLimit = 5000;
  std::atomic<std::int64_t> served{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      mgw_storage* s = t % 2 == 0 ? storage() : other->get();
      for (int i = 0; i < 25; ++i) {
        auto g = take(s, "budget:5", kLimit, 100, 100);
        if (g.added == 0) continue;
        charge(s, g.lease_id, 100, "c" + std::to_string(t) + "-" + std::to_string(i));
        h().on_lease_return(s, g.lease_id, 100, nullptr);
        served += 1;
      }
    });
  }
  for (auto& t : threads) t.join();
  const auto st = read("budget:5");
  EXPECT_EQ(st.spent, served.load() * 100);
  EXPECT_LE(st.spent, kLimit);
  EXPECT_EQ(served.load(), 50) << "everything that fitted was granted";
}

TEST_P(SpendStoreTest, PagesGoBySeqNewestFirstWithFilters) {
  for (int i = 0; i < 6; ++i) {
    Usage u;
    u.request_id = "p" + std::to_string(i);
    u.tenant_id = tenant_;
    u.created_unix_ms = 1'000'000 + i;
    u.alias = i % 2 == 0 ? "even" : "odd";
    u.feature = i < 3 ? "" : "search";
    u.http_status = i == 5 ? 402 : 200;
    u.reason = i == 5 ? "BUDGET_EXCEEDED" : "";
    const auto r = u.record();
    ASSERT_EQ(h().on_usage_insert(storage(), &r, 1, nullptr), MGW_OK);
  }
  auto page = [&](mgw_usage_filter f) {
    f.struct_size = sizeof f;
    f.tenant_id = tenant_;
    if (f.limit == 0) f.limit = 100;
    RowRecorder rows;
    EXPECT_EQ(h().on_usage_page(storage(), &f, &rows.sink, nullptr), MGW_OK);
    std::vector<std::string> ids;
    for (const auto& u : rows.usage) ids.push_back(u.request_id);
    return std::pair{ids, rows.usage};
  };
  mgw_usage_filter all{};
  all.stream = -1;
  auto [ids, rows] = page(all);
  EXPECT_EQ(ids, (std::vector<std::string>{"p5", "p4", "p3", "p2", "p1", "p0"}));
  EXPECT_GT(rows[0].seq, rows[1].seq);
  EXPECT_EQ(rows[0].reason, "BUDGET_EXCEEDED");
  mgw_usage_filter after = all;
  after.before_seq = rows[2].seq;
  after.limit = 2;
  EXPECT_EQ(page(after).first, (std::vector<std::string>{"p2", "p1"}));
  mgw_usage_filter even = all;
  even.model = mgw::str("even");
  EXPECT_EQ(page(even).first, (std::vector<std::string>{"p4", "p2", "p0"}));
  mgw_usage_filter no_feature = all;
  no_feature.has_feature = 1;
  EXPECT_EQ(page(no_feature).first, (std::vector<std::string>{"p2", "p1", "p0"}));
  mgw_usage_filter errors = all;
  errors.status_min = 400;
  errors.status_max = 599;
  EXPECT_EQ(page(errors).first, (std::vector<std::string>{"p5"}));
  mgw_usage_filter bad = all;
  bad.struct_size = sizeof bad;
  bad.tenant_id = tenant_;
  bad.limit = 1001;
  RowRecorder rows2;
  EXPECT_EQ(h().on_usage_page(storage(), &bad, &rows2.sink, nullptr), MGW_INVALID_ARGUMENT);
}

// A page filtered by model, feature or key, walked to its end with a cursor,
// holds exactly the records a scan of every record finds, newest (highest
// seq) first: however the records' hours and filters interleave, and when
// old records arrive late (a journal replayed after an outage), so that the
// ids of an hour's records are far apart.
TEST_P(SpendStoreTest, FilteredPagesEqualAScanHoweverRecordsInterleave) {
  std::mt19937_64 rng(11);
  const std::int64_t start = 1'795'000'000'000;
  int made = 0;
  auto batch = [&](int n, std::int64_t from, std::int64_t span) {
    std::vector<Usage> us(static_cast<std::size_t>(n));
    std::vector<mgw_usage_record> recs;
    for (auto& u : us) {
      u.request_id = "f" + std::to_string(made++);
      u.tenant_id = tenant_;
      u.key_id = static_cast<int64_t>(rng() % 4) + 1;
      u.alias = (rng() % 10) == 0 ? "rare" : ((rng() % 2) ? "a" : "b");
      u.feature = (rng() % 3) == 0 ? "" : "f" + std::to_string(rng() % 2);
      u.http_status = (rng() % 5) == 0 ? 502 : 200;
      u.created_unix_ms = from + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(span));
      recs.push_back(u.record());
    }
    ASSERT_EQ(h().on_usage_insert(storage(), recs.data(), recs.size(), nullptr), MGW_OK);
  };
  for (int i = 0; i < 12; ++i) batch(150, start + i * 3'600'000LL, 3'600'000);  // twelve hours, in order
  batch(200, start, 12 * 3'600'000LL);                                          // late: any of them
  batch(100, start + 5 * 3'600'000LL, 60'000);                                  // late, into one hour

  auto page_all = [&](mgw_usage_filter f) {
    f.struct_size = sizeof f;
    f.tenant_id = tenant_;
    f.limit = 7;
    std::vector<Usage> out;
    for (int pages = 0; pages < 1000; ++pages) {
      RowRecorder rows;
      EXPECT_EQ(h().on_usage_page(storage(), &f, &rows.sink, nullptr), MGW_OK);
      out.insert(out.end(), rows.usage.begin(), rows.usage.end());
      if (rows.usage.size() < 7) break;
      f.before_seq = rows.usage.back().seq;
    }
    return out;
  };
  mgw_usage_filter every{};
  every.stream = -1;
  const auto all = page_all(every);
  ASSERT_EQ(all.size(), static_cast<std::size_t>(made));
  for (std::size_t i = 1; i < all.size(); ++i) ASSERT_GT(all[i - 1].seq, all[i].seq);

  struct Case {
    std::string model, feature;
    bool has_feature;
    int64_t key;
    int64_t from, to;
    int status_min;
    std::string operation;  // every record here is chat.completions
  };
  const std::vector<Case> cases = {
      {"rare", "", false, 0, 0, 0, 0},
      {"a", "", false, 0, 0, 0, 0},
      {"", "f1", true, 0, 0, 0, 0},
      {"", "", true, 0, 0, 0, 0},  // records without a feature
      {"", "", false, 3, 0, 0, 0},
      {"b", "f0", true, 2, 0, 0, 0},
      {"rare", "", false, 0, start + 5 * 3'600'000LL + 30'000, start + 6 * 3'600'000LL + 1, 0},
      {"a", "", false, 4, start + 2 * 3'600'000LL, start + 9 * 3'600'000LL, 500},
      {"missing", "", false, 0, 0, 0, 0},
      {"a", "", false, 0, 0, 0, 0, "chat.completions"},
      {"", "f0", true, 2, 0, 0, 0, "responses"},
  };
  for (const auto& c : cases) {
    mgw_usage_filter f = every;
    f.model = mgw::str(c.model);
    f.has_feature = c.has_feature ? 1 : 0;
    f.feature = mgw::str(c.feature);
    f.key_id = c.key;
    f.from_unix_ms = c.from;
    f.to_unix_ms = c.to;
    f.status_min = c.status_min;
    f.status_max = c.status_min != 0 ? 599 : 0;
    f.operation = mgw::str(c.operation);
    std::vector<std::string> expected;
    for (const auto& u : all) {
      if (!c.model.empty() && u.alias != c.model) continue;
      if (c.has_feature && u.feature != c.feature) continue;
      if (c.key != 0 && u.key_id != c.key) continue;
      if ((c.from != 0 && u.created_unix_ms < c.from) || (c.to != 0 && u.created_unix_ms >= c.to)) continue;
      if (c.status_min != 0 && u.http_status < c.status_min) continue;
      if (!c.operation.empty() && c.operation != "chat.completions") continue;
      expected.push_back(u.request_id);
    }
    std::vector<std::string> got;
    for (const auto& u : page_all(f)) got.push_back(u.request_id);
    EXPECT_EQ(got, expected) << "model '" << c.model << "' feature '" << c.feature << "' key " << c.key
                             << " from " << c.from << " to " << c.to << " operation '" << c.operation << "'";
  }
}

TEST_P(SpendStoreTest, TotalsFromTheRollupsEqualAScanForAnyRangeAndGrouping) {
  // 20,000 records over ~3 days, in batches, with random columns.
  std::mt19937_64 rng(7);
  const std::int64_t start = 1'795'000'000'000;
  std::vector<Usage> all;
  for (int batch = 0; batch < 40; ++batch) {
    std::vector<Usage> us(500);
    std::vector<mgw_usage_record> recs;
    for (auto& u : us) {
      u.request_id = "r" + std::to_string(all.size() + recs.size());
      u.tenant_id = tenant_;
      u.key_id = static_cast<int64_t>(rng() % 3) + 1;
      u.alias = (rng() % 2) ? "a" : "b";
      u.feature = (rng() % 3) == 0 ? "" : "f" + std::to_string(rng() % 2);
      u.http_status = (rng() % 5) == 0 ? 502 : 200;
      u.streamed = static_cast<int32_t>(rng() % 2);
      u.created_unix_ms = start + static_cast<std::int64_t>(rng() % (3LL * 86'400'000));
      u.prompt_tokens = static_cast<int64_t>(rng() % 100);
      u.completion_tokens = static_cast<int64_t>(rng() % 100);
      u.total_tokens = u.prompt_tokens + u.completion_tokens;
      u.cost_micros = static_cast<int64_t>(rng() % 10000);
      u.operation = (rng() % 4) == 0 ? "responses" : "chat.completions";
      recs.push_back(u.record());
    }
    ASSERT_EQ(h().on_usage_insert(storage(), recs.data(), recs.size(), nullptr), MGW_OK);
    all.insert(all.end(), us.begin(), us.end());
  }
  auto totals = [&](std::int64_t from, std::int64_t to, const std::string& group, const std::string& model,
                    int stream, const std::string& operation) {
    mgw_usage_filter f{};
    f.struct_size = sizeof f;
    f.tenant_id = tenant_;
    f.from_unix_ms = from;
    f.to_unix_ms = to;
    f.model = mgw::str(model);
    f.stream = stream;
    f.group_by = mgw::str(group);
    f.operation = mgw::str(operation);
    RowRecorder rows;
    EXPECT_EQ(h().on_usage_totals(storage(), &f, &rows.sink, nullptr), MGW_OK);
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> out;  // key -> requests, cost
    for (const auto& g : rows.groups) out[g.key] = {g.requests, g.cost_micros};
    return out;
  };
  auto scan = [&](std::int64_t from, std::int64_t to, const std::string& group, const std::string& model,
                  int stream, const std::string& operation) {
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> out;
    for (const auto& u : all) {
      if ((from != 0 && u.created_unix_ms < from) || (to != 0 && u.created_unix_ms >= to)) continue;
      if (!model.empty() && u.alias != model) continue;
      if (stream >= 0 && u.streamed != stream) continue;
      if (!operation.empty() && u.operation != operation) continue;
      std::string key;
      if (group == "hour") key = std::to_string(u.created_unix_ms - u.created_unix_ms % 3'600'000);
      if (group == "day") key = std::to_string(u.created_unix_ms - u.created_unix_ms % 86'400'000);
      if (group == "model") key = u.alias;
      if (group == "feature") key = u.feature;
      if (group == "key") key = std::to_string(u.key_id);
      out[key].first += 1;
      out[key].second += u.cost_micros;
    }
    if (group.empty() && out.empty()) out[""] = {0, 0};
    return out;
  };
  for (int i = 0; i < 20; ++i) {
    std::int64_t from = start + static_cast<std::int64_t>(rng() % (3LL * 86'400'000));
    std::int64_t to = from + static_cast<std::int64_t>(rng() % (2LL * 86'400'000)) + 1;
    if (i == 0) from = 0, to = 0;
    if (i == 1) to = from + 60'000;  // inside one hour
    for (const std::string group : {"", "hour", "day", "model", "feature", "key"}) {
      const std::string model = i % 3 == 0 ? "a" : "";
      const int stream = i % 4 == 0 ? 1 : -1;
      // The rollups are kept per operation: a filter on it reads them too.
      const std::string operation = i % 5 == 1 ? "responses" : i % 5 == 2 ? "chat.completions" : "";
      EXPECT_EQ(totals(from, to, group, model, stream, operation),
                scan(from, to, group, model, stream, operation))
          << "from " << from << " to " << to << " group " << group << " operation " << operation;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, SpendStoreTest, MGW_STORAGE_BACKENDS);

}  // namespace
}  // namespace storage_test
