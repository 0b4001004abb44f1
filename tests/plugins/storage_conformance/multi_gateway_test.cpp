// Several gateways on one database: every handle here is opened separately on
// the test's database, as each gateway process opens its own, and threads race
// them against each other. What one process does must never be half-seen or
// doubled by another.
#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "fixture.h"

namespace storage_test {
namespace {

using std::chrono::steady_clock;

constexpr int kHandles = 4;

// Lets every thread start its racing call at about the same moment; gives up
// waiting after a few seconds so a thread that never came cannot hang the test.
class StartGate {
 public:
  explicit StartGate(int parties) : parties_(parties) {}
  void arrive_and_wait() {
    ++arrived_;
    const auto deadline = steady_clock::now() + std::chrono::seconds(10);
    while (arrived_.load() < parties_ && steady_clock::now() < deadline) std::this_thread::yield();
  }

 private:
  const int parties_;
  std::atomic<int> arrived_{0};
};

class MultiGatewayTest : public StorageTest {
 protected:
  void SetUp() override {
    StorageTest::SetUp();
    for (int i = 0; i < kHandles; ++i) gateways_.push_back(open());
  }

  mgw_storage* gateway(int i) const { return gateways_[static_cast<size_t>(i) % gateways_.size()]->get(); }

  mgw_status take(mgw_storage* s, const std::string& account, int64_t limit, int64_t want, int64_t at_least,
                  int64_t lease_id, mgw_lease_grant* out, std::string* error_text = nullptr) {
    mgw_lease_request r{};
    r.struct_size = sizeof r;
    r.account = mgw::str(account);
    r.window_start_unix_ms = 100;
    r.limit = limit;
    r.lease_id = lease_id;
    r.want = want;
    r.at_least = at_least;
    r.expires_unix_ms = now_ms() + 600'000;
    r.holder = mgw::str("gateway");
    *out = mgw_lease_grant{};
    out->struct_size = sizeof *out;
    mgw::testing::TextRecorder error;
    const mgw_status st = h().on_lease_take(s, &r, out, &error.sink);
    if (error_text != nullptr) *error_text = error.text;
    return st;
  }

  mgw_ledger_state ledger(const std::string& account) {
    mgw_ledger_state st{};
    st.struct_size = sizeof st;
    EXPECT_EQ(h().on_ledger_read(storage(), mgw::str(account), 100, now_ms(), &st, nullptr), MGW_OK);
    return st;
  }

  // Request ids of every stored usage record (newest first), through `s`.
  std::vector<std::string> stored_ids(mgw_storage* s) {
    mgw_usage_query q{};
    q.struct_size = sizeof q;
    q.limit = 1000;
    RowRecorder rows;
    EXPECT_EQ(h().on_usage_query(s, &q, &rows.sink, nullptr), MGW_OK);
    std::vector<std::string> ids;
    for (const auto& u : rows.usage) ids.push_back(u.request_id);
    return ids;
  }

  // The tenant's totals from the rollups: requests and cost.
  std::pair<int64_t, int64_t> totals(mgw_storage* s, int64_t tenant) {
    mgw_usage_filter f{};
    f.struct_size = sizeof f;
    f.tenant_id = tenant;
    f.stream = -1;
    RowRecorder rows;
    EXPECT_EQ(h().on_usage_totals(s, &f, &rows.sink, nullptr), MGW_OK);
    if (rows.groups.size() != 1) {
      ADD_FAILURE() << "totals without group_by must be one row, got " << rows.groups.size();
      return {-1, -1};
    }
    return {rows.groups[0].requests, rows.groups[0].cost_micros};
  }

  std::vector<std::unique_ptr<Storage>> gateways_;
};

TEST_P(MultiGatewayTest, ConcurrentLeaseTakesFromManyHandlesNeverPassTheLimit) {
  constexpr int64_t kLimit = 1000;
  constexpr int64_t kSpent = 300;
  const std::string account = "budget:race";
  // 300 already settled: a lease, a record charging it, the lease returned.
  mgw_lease_grant first{};
  ASSERT_EQ(take(storage(), account, kLimit, kSpent, kSpent, 0, &first), MGW_OK);
  ASSERT_EQ(first.added, kSpent);
  Usage paid;
  paid.request_id = "paid";
  paid.tenant_id = 1;
  paid.cost_micros = kSpent;
  paid.charges = {mgw_ledger_charge{first.lease_id, kSpent}};
  insert_usage(storage(), {paid});
  ASSERT_EQ(h().on_lease_return(storage(), first.lease_id, kSpent, nullptr), MGW_OK);

  // Two threads per handle take slices of 37 (so the last one is a remainder),
  // half of them growing the lease they already hold, until nothing is left.
  constexpr int kThreads = 2 * kHandles;
  constexpr int kMaxCalls = 60;  // ~19 slices fit: bounded well above that
  std::atomic<int64_t> added{0};
  Failures failures;
  StartGate gate(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      mgw_storage* s = gateway(t);
      int64_t lease = 0;
      gate.arrive_and_wait();
      for (int i = 0; i < kMaxCalls; ++i) {
        mgw_lease_grant g{};
        std::string error;
        const mgw_status st = take(s, account, kLimit, 37, 1, t % 2 == 0 ? lease : 0, &g, &error);
        if (st != MGW_OK) {
          failures.add("take: " + std::to_string(st) + " " + error);
          return;
        }
        if (g.added < 0 || g.added > 37) failures.add("added " + std::to_string(g.added) + " of 37");
        if (g.spent + g.reserved > kLimit)
          failures.add("spent " + std::to_string(g.spent) + " + reserved " + std::to_string(g.reserved) +
                       " passes the limit");
        if (g.added == 0) return;
        added += g.added;
        lease = g.lease_id;
      }
      failures.add("still granted after " + std::to_string(kMaxCalls) + " calls");
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_TRUE(failures.lines.empty()) << failures.lines.size() << " failures, first: " << failures.first();
  EXPECT_LE(added.load(), kLimit - kSpent) << "granted past the limit";
  EXPECT_EQ(added.load(), kLimit - kSpent) << "everything free was eventually granted";
  const auto st = ledger(account);
  EXPECT_EQ(st.spent, kSpent);
  EXPECT_EQ(st.reserved, added.load()) << "the ledger's reservations are exactly what was granted";
}

TEST_P(MultiGatewayTest, ConcurrentIdempotencyClaimsFromManyHandlesExactlyOneWins) {
  constexpr int kThreads = 4 * kHandles;
  std::atomic<int> won{0}, lost{0};
  std::vector<std::string> winners(kThreads), seen_owner(kThreads);
  Failures failures;
  StartGate gate(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string owner = "req_" + std::to_string(t);
      mgw_idempotency_record r{};
      r.struct_size = sizeof r;
      r.tenant_id = 7;
      r.key = mgw::str("race");
      r.digest = mgw::str("d");
      r.owner = mgw::str(owner);
      r.state = MGW_IDEMPOTENCY_PENDING;
      r.created_unix_ms = 1000;
      r.expires_unix_ms = 10'000;
      std::string row_owner;
      int rows = 0;
      mgw_row_sink sink{};
      sink.struct_size = sizeof sink;
      struct Seen {
        std::string* owner;
        int* rows;
      } seen{&row_owner, &rows};
      sink.host_data = &seen;
      sink.callback_idempotency = [](void* self, const mgw_idempotency_record* row) {
        auto* me = static_cast<Seen*>(self);
        me->owner->assign(mgw::view(row->owner));
        ++*me->rows;
      };
      mgw::testing::TextRecorder error;
      gate.arrive_and_wait();
      const mgw_status st = h().on_idempotency_claim(gateway(t), &r, 1000, &sink, &error.sink);
      if (st == MGW_OK) {
        ++won;
        winners[t] = owner;
      } else if (st == MGW_CONFLICT && rows == 1) {
        ++lost;
        seen_owner[t] = row_owner;
      } else {
        failures.add("claim: " + std::to_string(st) + " with " + std::to_string(rows) +
                     " rows: " + error.text);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_TRUE(failures.lines.empty()) << failures.lines.size() << " failures, first: " << failures.first();
  EXPECT_EQ(won.load(), 1);
  EXPECT_EQ(lost.load(), kThreads - 1);
  std::string winner;
  for (const auto& w : winners)
    if (!w.empty()) winner = w;
  for (const auto& o : seen_owner) {
    if (!o.empty()) {
      EXPECT_EQ(o, winner) << "a loser was handed a row that is not the winner's";
    }
  }
}

TEST_P(MultiGatewayTest, ConcurrentAuditAppendsOfOneSeqExactlyOneWinsAndLosersLeaveNothing) {
  // Each appender's batch links (tenant 1, seq r) and starts a chain of its
  // own (tenant 1000*r + t): a loser's second event must not be stored.
  constexpr int kThreads = 2 * kHandles;
  constexpr int kRounds = 4;
  for (int round = 1; round <= kRounds; ++round) {
    std::atomic<int> won{0}, conflicts{0};
    std::vector<int> winner(1, -1);
    Failures failures;
    StartGate gate(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        const std::string hash = "h" + std::to_string(round) + "_" + std::to_string(t);
        auto event = [&](int64_t tenant, int64_t seq) {
          mgw_audit_event e{};
          e.struct_size = sizeof e;
          e.tenant_id = tenant;
          e.seq = seq;
          e.created_unix_ms = 1000 * round;
          e.actor = mgw::str("cli");
          e.action = mgw::str("race");
          e.target = mgw::str("t");
          e.request_id = mgw::str("");
          e.details_json = mgw::str("{}");
          e.prev_hash = mgw::str("p");
          e.hash = mgw::str(hash);
          return e;
        };
        mgw_audit_event batch[2] = {event(1, round), event(1000 * round + t, 1)};
        mgw::testing::TextRecorder error;
        gate.arrive_and_wait();
        const mgw_status st = h().on_audit_append(gateway(t), batch, 2, &error.sink);
        if (st == MGW_OK) {
          ++won;
          winner[0] = t;
        } else if (st == MGW_CONFLICT) {
          ++conflicts;
        } else {
          failures.add("append: " + std::to_string(st) + " " + error.text);
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_TRUE(failures.lines.empty()) << failures.lines.size() << " failures, first: " << failures.first();
    EXPECT_EQ(won.load(), 1) << "round " << round;
    EXPECT_EQ(conflicts.load(), kThreads - 1) << "round " << round;

    // Heads: tenant 1 at seq `round` with the winner's hash, and of this
    // round's own chains only the winner's.
    struct Heads {
      std::vector<std::pair<int64_t, int64_t>> rows;  // tenant, seq
      std::vector<std::string> hashes;
    } heads;
    mgw_row_sink sink{};
    sink.struct_size = sizeof sink;
    sink.host_data = &heads;
    sink.callback_audit = [](void* self, const mgw_audit_event* e) {
      auto* me = static_cast<Heads*>(self);
      me->rows.emplace_back(e->tenant_id, e->seq);
      me->hashes.emplace_back(mgw::view(e->hash));
    };
    ASSERT_EQ(h().on_audit_heads(storage(), &sink, nullptr), MGW_OK);
    ASSERT_EQ(heads.rows.size(), static_cast<size_t>(1 + round)) << "one chain per winner, plus tenant 1";
    EXPECT_EQ(heads.rows[0], std::make_pair(int64_t{1}, int64_t{round}));
    EXPECT_EQ(heads.hashes[0], "h" + std::to_string(round) + "_" + std::to_string(winner[0]));
    EXPECT_EQ(heads.rows.back(), std::make_pair(int64_t{1000 * round + winner[0]}, int64_t{1}));
  }
}

TEST_P(MultiGatewayTest, TheSameRequestIdFromSeveralHandlesIsStoredAndCountedOnce) {
  // A gateway replaying its journal while another replays an overlapping one:
  // every record is stored once, its rollups and its charge counted once, and
  // no handle sees an error for a duplicate.
  const int64_t tenant = create_tenant(storage(), "acme");
  mgw_lease_grant lease{};
  ASSERT_EQ(take(storage(), "budget:dup", 100'000, 10'000, 1, 0, &lease), MGW_OK);
  constexpr int kBatches = 10, kPerBatch = 5, kCost = 10;
  std::vector<std::vector<Usage>> batches(kBatches);
  for (int b = 0; b < kBatches; ++b) {
    for (int i = 0; i < kPerBatch; ++i) {
      Usage u;
      u.request_id = "dup_" + std::to_string(b * kPerBatch + i);
      u.tenant_id = tenant;
      u.created_unix_ms = 1'000'000 + b;
      u.total_tokens = 3;
      u.cost_micros = kCost;
      u.charges = {mgw_ledger_charge{lease.lease_id, kCost}};
      batches[b].push_back(u);
    }
  }
  Failures failures;
  StartGate gate(kHandles);
  std::vector<std::thread> threads;
  for (int t = 0; t < kHandles; ++t) {
    threads.emplace_back([&, t] {
      gate.arrive_and_wait();
      for (const auto& batch : batches) {
        std::vector<mgw_usage_record> records;
        for (const auto& u : batch) records.push_back(u.record());
        mgw::testing::TextRecorder error;
        if (auto st = h().on_usage_insert(gateway(t), records.data(), records.size(), &error.sink);
            st != MGW_OK)
          failures.add("insert: " + std::to_string(st) + " " + error.text);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_TRUE(failures.lines.empty()) << failures.lines.size() << " failures, first: " << failures.first();

  // Sent once more afterwards, one by one: still skipped.
  const auto again = batches[3][2].record();
  EXPECT_EQ(h().on_usage_insert(gateway(1), &again, 1, nullptr), MGW_OK);

  constexpr int kRecords = kBatches * kPerBatch;
  const auto ids = stored_ids(gateway(2));
  EXPECT_EQ(ids.size(), static_cast<size_t>(kRecords));
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), static_cast<size_t>(kRecords));
  EXPECT_EQ(totals(gateway(3), tenant), std::make_pair(int64_t{kRecords}, int64_t{kRecords * kCost}));
  EXPECT_EQ(ledger("budget:dup").spent, kRecords * kCost) << "a duplicate's charge settled twice";
}

TEST_P(MultiGatewayTest, OneLargeBatchCountsEachRecordsRollupAndChargesOnce) {
  // A store may sum a batch's rollup rows and lease charges before writing
  // them (SQLite does); the totals must be those of the records one by one:
  // two models, two leases, records charging both, a zero charge, and a
  // request_id repeated inside the batch (stored and counted once).
  const int64_t tenant = create_tenant(storage(), "acme");
  mgw_lease_grant month{}, credit{};
  ASSERT_EQ(take(storage(), "budget:big-month", 10'000'000, 1'000'000, 1, 0, &month), MGW_OK);
  ASSERT_EQ(take(storage(), "credit:big", 10'000'000, 1'000'000, 1, 0, &credit), MGW_OK);
  std::vector<Usage> batch;
  int64_t month_spent = 0, credit_spent = 0, cost = 0;
  for (int i = 0; i < 40; ++i) {
    Usage u;
    u.request_id = "big_" + std::to_string(i);
    u.tenant_id = tenant;
    u.alias = i % 2 == 0 ? "even" : "odd";
    u.created_unix_ms = 1'000'000 + i;
    u.total_tokens = 2;
    u.cost_micros = 10 + i;
    u.charges = {mgw_ledger_charge{month.lease_id, 10 + i}};
    month_spent += 10 + i;
    if (i % 3 == 0) {
      u.charges.push_back(mgw_ledger_charge{credit.lease_id, i == 0 ? 0 : 7});
      credit_spent += i == 0 ? 0 : 7;
    }
    cost += 10 + i;
    batch.push_back(u);
  }
  batch.push_back(batch[5]);  // the same request twice in one batch
  std::vector<mgw_usage_record> records;
  for (const auto& u : batch) records.push_back(u.record());
  ASSERT_EQ(h().on_usage_insert(gateway(0), records.data(), records.size(), nullptr), MGW_OK);
  EXPECT_EQ(stored_ids(gateway(1)).size(), 40u);
  EXPECT_EQ(totals(gateway(1), tenant), std::make_pair(int64_t{40}, cost));
  EXPECT_EQ(ledger("budget:big-month").spent, month_spent);
  EXPECT_EQ(ledger("credit:big").spent, credit_spent);
}

TEST_P(MultiGatewayTest, BatchesTouchingTheSameRollupsAndWindowsInOppositeOrdersAllLand) {
  // Two gateways flushing at once: each batch spans several rollup rows
  // (models) and ledger windows (leases of different accounts), the two in
  // opposite orders. A store that locked them in record order would
  // deadlock, give up after its retries, and the records would wait in the
  // journal; every batch must land, counted once.
  const int64_t tenant = create_tenant(storage(), "acme");
  constexpr int kModels = 6, kRounds = 12;
  std::vector<int64_t> leases;
  for (int m = 0; m < kModels; ++m) {
    mgw_lease_grant lease{};
    ASSERT_EQ(take(storage(), "budget:order" + std::to_string(m), 10'000'000, 1'000'000, 1, 0, &lease),
              MGW_OK);
    leases.push_back(lease.lease_id);
  }
  const std::size_t logged_before = host().logs().size();
  Failures failures;
  StartGate gate(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      gate.arrive_and_wait();
      for (int round = 0; round < kRounds; ++round) {
        std::vector<Usage> batch;
        for (int i = 0; i < kModels; ++i) {
          const int m = t == 0 ? i : kModels - 1 - i;  // opposite orders
          Usage u;
          u.request_id = "order_" + std::to_string(t) + "_" + std::to_string(round) + "_" + std::to_string(m);
          u.tenant_id = tenant;
          u.alias = "model" + std::to_string(m);
          u.created_unix_ms = 1'000'000;
          u.total_tokens = 1;
          u.cost_micros = 5;
          u.charges = {mgw_ledger_charge{leases[static_cast<size_t>(m)], 5}};
          batch.push_back(u);
        }
        std::vector<mgw_usage_record> records;
        for (const auto& u : batch) records.push_back(u.record());
        mgw::testing::TextRecorder error;
        if (auto st = h().on_usage_insert(gateway(t), records.data(), records.size(), &error.sink);
            st != MGW_OK)
          failures.add("insert: " + std::to_string(st) + " " + error.text);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_TRUE(failures.lines.empty()) << failures.lines.size() << " failures, first: " << failures.first();
  // Not even a retried deadlock: each costs the server's deadlock_timeout.
  const auto logs = host().logs();
  for (std::size_t i = logged_before; i < logs.size(); ++i)
    EXPECT_EQ(logs[i].second.find("deadlock"), std::string::npos) << logs[i].second;
  constexpr int kRecords = 2 * kRounds * kModels;
  EXPECT_EQ(totals(gateway(1), tenant), std::make_pair(int64_t{kRecords}, int64_t{kRecords * 5}));
  for (int m = 0; m < kModels; ++m) {
    mgw_ledger_state st{};
    st.struct_size = sizeof st;
    ASSERT_EQ(h().on_ledger_read(storage(), mgw::str("budget:order" + std::to_string(m)), 100, now_ms(), &st,
                                 nullptr),
              MGW_OK);
    EXPECT_EQ(st.spent, 2 * kRounds * 5) << "account " << m;
  }
}

TEST_P(MultiGatewayTest, AUsageBatchIsAllOrNoneWhileOtherHandlesWrite) {
  // One gateway's batches keep failing at their third record while the others
  // write: none of its records, rollups or charges may ever be seen.
  const int64_t tenant = create_tenant(storage(), "acme");
  mgw_lease_grant lease{};
  ASSERT_EQ(take(storage(), "budget:batch", 100'000, 10'000, 1, 0, &lease), MGW_OK);
  db().refuse_usage_insert("poison", "poison refused");
  auto usage = [&](const std::string& id) {
    Usage u;
    u.request_id = id;
    u.tenant_id = tenant;
    u.created_unix_ms = 2'000'000;
    u.cost_micros = 7;
    u.charges = {mgw_ledger_charge{lease.lease_id, 7}};
    return u;
  };
  constexpr int kFailing = 10, kGoodBatches = 15, kGoodPerBatch = 3;
  Failures failures;
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    const std::vector<Usage> bad = {usage("bad_1"), usage("bad_2"), usage("poison"), usage("bad_3")};
    std::vector<mgw_usage_record> records;
    for (const auto& u : bad) records.push_back(u.record());
    for (int i = 0; i < kFailing; ++i) {
      mgw::testing::TextRecorder error;
      const mgw_status st = h().on_usage_insert(gateway(0), records.data(), records.size(), &error.sink);
      if (st == MGW_INTERNAL && error.text.find("poison refused") != std::string::npos)
        ++refused;
      else
        failures.add("poisoned batch: " + std::to_string(st) + " " + error.text);
    }
  });
  for (int t = 1; t < kHandles; ++t) {
    threads.emplace_back([&, t] {
      for (int b = 0; b < kGoodBatches; ++b) {
        std::vector<Usage> good;
        for (int i = 0; i < kGoodPerBatch; ++i)
          good.push_back(
              usage("good_" + std::to_string(t) + "_" + std::to_string(b) + "_" + std::to_string(i)));
        std::vector<mgw_usage_record> records;
        for (const auto& u : good) records.push_back(u.record());
        mgw::testing::TextRecorder error;
        if (auto st = h().on_usage_insert(gateway(t), records.data(), records.size(), &error.sink);
            st != MGW_OK)
          failures.add("good batch: " + std::to_string(st) + " " + error.text);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_TRUE(failures.lines.empty()) << failures.lines.size() << " failures, first: " << failures.first();
  EXPECT_EQ(refused.load(), kFailing);

  constexpr int kGood = (kHandles - 1) * kGoodBatches * kGoodPerBatch;
  for (int t = 0; t < kHandles; ++t) {
    const auto ids = stored_ids(gateway(t));
    EXPECT_EQ(ids.size(), static_cast<size_t>(kGood)) << "seen from handle " << t;
    for (const auto& id : ids) EXPECT_EQ(id.rfind("good_", 0), 0u) << id << " is from the refused batch";
  }
  EXPECT_EQ(totals(storage(), tenant), std::make_pair(int64_t{kGood}, int64_t{kGood * 7}));
  EXPECT_EQ(ledger("budget:batch").spent, kGood * 7);

  // The refusing handle is usable afterwards.
  insert_usage(gateway(0), {usage("bad_1"), usage("bad_2"), usage("bad_3")});
  EXPECT_EQ(stored_ids(storage()).size(), static_cast<size_t>(kGood + 3));
}

TEST_P(MultiGatewayTest, TenantNamesPromptNumbersAndTopUpsStayUniqueAcrossHandles) {
  constexpr int kThreads = 2 * kHandles;
  constexpr int kEach = 8;
  const int64_t tenant = create_tenant(storage(), "acme");
  int64_t credit = 0;
  {
    mgw_budget_record b{};
    b.struct_size = sizeof b;
    b.tenant_id = tenant;
    b.scope = mgw::str("credit");
    b.subject = mgw::str("");
    b.window = mgw::str("none");
    b.limit_micros = 5;
    ASSERT_EQ(h().on_budget_create(storage(), &b, &credit, nullptr), MGW_OK);
  }
  std::atomic<int> named{0}, taken{0};
  std::vector<std::vector<int64_t>> versions(kThreads);
  Failures failures;
  StartGate gate(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      mgw_storage* s = gateway(t);
      gate.arrive_and_wait();
      // One name, created by everyone at once: one wins.
      mgw::testing::TextRecorder name_error;
      const mgw_status st = h().on_tenant_create(s, mgw::str("contested"), 1, nullptr, &name_error.sink);
      if (st == MGW_OK)
        ++named;
      else if (st == MGW_CONFLICT)
        ++taken;
      else
        failures.add("tenant create: " + std::to_string(st) + " " + name_error.text);
      for (int i = 0; i < kEach; ++i) {
        PromptVersion v;
        v.tenant_id = tenant;
        v.name = "busy";
        auto record = v.record();
        int64_t number = 0;
        mgw::testing::TextRecorder error;
        if (auto rc = h().on_prompt_version_create(s, &record, 0, &number, &error.sink); rc != MGW_OK)
          failures.add("prompt: " + std::to_string(rc) + " " + error.text);
        else
          versions[t].push_back(number);
        int64_t limit = 0;
        if (auto rc = h().on_budget_set_limit(s, credit, 0, 1000, &limit, &error.sink); rc != MGW_OK)
          failures.add("top-up: " + std::to_string(rc) + " " + error.text);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_TRUE(failures.lines.empty()) << failures.lines.size() << " failures, first: " << failures.first();
  EXPECT_EQ(named.load(), 1);
  EXPECT_EQ(taken.load(), kThreads - 1);
  std::set<int64_t> seen;
  for (const auto& n : versions) seen.insert(n.begin(), n.end());
  EXPECT_EQ(seen.size(), static_cast<size_t>(kThreads * kEach)) << "two creates got one number";
  EXPECT_EQ(*seen.begin(), 1);
  EXPECT_EQ(*seen.rbegin(), kThreads * kEach);
  RowRecorder rows;
  ASSERT_EQ(h().on_prompt_version_list(storage(), tenant, mgw::str("busy"), &rows.sink, nullptr), MGW_OK);
  int active = 0;
  for (const auto& v : rows.prompts) active += v.active ? 1 : 0;
  EXPECT_EQ(active, 1);
  ASSERT_EQ(h().on_budget_list(storage(), tenant, &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.budgets.size(), 1u);
  EXPECT_EQ(rows.budgets[0].limit_micros, 5 + kThreads * kEach * 1000) << "a top-up was lost";
}

INSTANTIATE_TEST_SUITE_P(Backends, MultiGatewayTest, MGW_STORAGE_BACKENDS);

}  // namespace
}  // namespace storage_test
