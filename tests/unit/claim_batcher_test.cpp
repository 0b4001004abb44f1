// Group commit of idempotency keys (claim_batcher.h): requests on two event
// loops share batches (fewer storage calls than claims), each resumes on its
// own loop with its own row's outcome, a batch that fails fails each of its
// waiters with the error one failing call gives, finishes linger for each
// other but never hold up a claim, and a plugin without the ABI 1.12 batch
// hooks gets one call per row with the same outcomes.
#include "idempotency/claim_batcher.h"
#include "storage_fixture.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace modelgw::idempotency {
namespace {

using Kind = plugins::IdempotencyClaimOutcome::Kind;
using FinishKind = plugins::IdempotencyFinishOutcome::Kind;

plugins::IdempotencyRow batcher_test_row(const std::string& key, const std::string& owner,
                                         std::int64_t expires = 4'000'000'000'000) {
  plugins::IdempotencyRow r;
  r.tenant_id = 1;
  r.key = key;
  r.digest = "digest-" + key;
  r.owner = owner;
  r.state = MGW_IDEMPOTENCY_PENDING;
  r.created_unix_ms = 1000;
  r.expires_unix_ms = expires;
  return r;
}

// Keys named "held-*" are held by "other"; the rest are claimed. Each call
// takes a while, as a storage write does, so that claims queue meanwhile.
class FakeStore final : public ClaimBatcher::Store {
 public:
  std::vector<plugins::IdempotencyClaimOutcome> claim_batch(
      const std::vector<plugins::IdempotencyRow>& claims, std::int64_t) override {
    calls++;
    rows += claims.size();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (fail)
      throw plugins::StorageError(MGW_UNAVAILABLE, "storage: claim idempotency keys failed (unavailable)");
    std::vector<plugins::IdempotencyClaimOutcome> out(claims.size());
    for (std::size_t i = 0; i < claims.size(); ++i) {
      if (claims[i].key.rfind("held-", 0) == 0) {
        out[i].kind = Kind::held;
        out[i].held = claims[i];
        out[i].held.owner = "other";
      } else {
        out[i].kind = Kind::claimed;
      }
    }
    return out;
  }
  std::vector<plugins::IdempotencyFinishOutcome> finish_batch(
      const std::vector<plugins::IdempotencyRow>& finishes) override {
    calls++;
    rows += finishes.size();
    std::vector<plugins::IdempotencyFinishOutcome> out(finishes.size());
    for (auto& o : out) o.kind = FinishKind::done;
    return out;
  }

  std::atomic<int> calls{0};
  std::atomic<std::size_t> rows{0};
  std::atomic<bool> fail{false};
};

// Two event loops, each on its own thread.
struct TwoLoops {
  net::asio::io_context a, b;
  net::asio::executor_work_guard<net::asio::io_context::executor_type> wa = net::asio::make_work_guard(a);
  net::asio::executor_work_guard<net::asio::io_context::executor_type> wb = net::asio::make_work_guard(b);
  std::thread ta{[this] { a.run(); }}, tb{[this] { b.run(); }};
  ~TwoLoops() {
    wa.reset();
    wb.reset();
    ta.join();
    tb.join();
  }
};

struct Seen {
  plugins::IdempotencyClaimOutcome outcome;
  bool on_own_loop = false;
};

// Spawns `n` claims alternately on the two loops; waits for all of them.
std::vector<Seen> claim_from_two_loops(ClaimBatcher& batcher, TwoLoops& loops, int n) {
  std::vector<Seen> seen(static_cast<std::size_t>(n));
  std::vector<std::future<void>> done;
  for (int i = 0; i < n; ++i) {
    auto& loop = i % 2 == 0 ? loops.a : loops.b;
    const std::string key = (i % 3 == 0 ? "held-" : "new-") + std::to_string(i);
    done.push_back(net::asio::co_spawn(
        loop,
        [&, key, i, ctx = &loop]() -> net::Task<void> {
          auto outcome = co_await batcher.claim(batcher_test_row(key, "req_" + std::to_string(i)));
          seen[static_cast<std::size_t>(i)].on_own_loop = ctx->get_executor().running_in_this_thread();
          seen[static_cast<std::size_t>(i)].outcome = std::move(outcome);
        },
        net::asio::use_future));
  }
  for (auto& f : done) f.get();
  return seen;
}

TEST(ClaimBatcher, ConcurrentClaimsFromTwoLoopsShareBatchesAndEachGetsItsOwnRowsOutcome) {
  FakeStore store;
  net::BlockingPool pool(2);
  ClaimBatcher batcher(store, pool);
  TwoLoops loops;
  constexpr int kClaims = 300;
  const auto seen = claim_from_two_loops(batcher, loops, kClaims);
  for (int i = 0; i < kClaims; ++i) {
    const auto& s = seen[static_cast<std::size_t>(i)];
    EXPECT_TRUE(s.on_own_loop) << i;
    if (i % 3 == 0) {
      ASSERT_EQ(s.outcome.kind, Kind::held) << i;
      EXPECT_EQ(s.outcome.held.key, "held-" + std::to_string(i));
      EXPECT_EQ(s.outcome.held.owner, "other");
    } else {
      EXPECT_EQ(s.outcome.kind, Kind::claimed) << i;
    }
  }
  EXPECT_EQ(store.rows.load(), static_cast<std::size_t>(kClaims));
  EXPECT_LT(store.calls.load(), kClaims / 2) << "claims that arrive while a batch runs share the next";
  EXPECT_EQ(batcher.batches(), static_cast<std::uint64_t>(store.calls.load()));
}

TEST(ClaimBatcher, ALoneClaimIsWrittenAtOnceInABatchOfItsOwn) {
  FakeStore store;
  net::BlockingPool pool(1);
  ClaimBatcher batcher(store, pool);
  TwoLoops loops;
  for (int round = 0; round < 3; ++round) {
    const auto seen = claim_from_two_loops(batcher, loops, 1);
    EXPECT_EQ(seen[0].outcome.kind, Kind::held);
  }
  EXPECT_EQ(store.calls.load(), 3);
}

TEST(ClaimBatcher, AFailedBatchFailsEachWaiterWithTheErrorOneFailedCallGives) {
  FakeStore store;
  store.fail = true;
  net::BlockingPool pool(2);
  ClaimBatcher batcher(store, pool);
  TwoLoops loops;
  const auto seen = claim_from_two_loops(batcher, loops, 40);
  for (const auto& s : seen) {
    EXPECT_EQ(s.outcome.kind, Kind::failed);
    EXPECT_EQ(s.outcome.error, "storage: claim idempotency keys failed (unavailable)");
  }
  // And the batcher goes on once storage does.
  store.fail = false;
  const auto again = claim_from_two_loops(batcher, loops, 4);
  EXPECT_EQ(again[1].outcome.kind, Kind::claimed);
}

// Finishes from both loops, all answered (on the blocking pool) with their
// own row's outcome; handed over together, they share one batch instead of
// one each.
TEST(ClaimBatcher, FinishesLingerForEachOtherAndAreEachAnswered) {
  FakeStore store;
  net::BlockingPool pool(2);
  ClaimBatcher batcher(store, pool);
  constexpr int kFinishes = 20;
  std::vector<std::promise<plugins::IdempotencyFinishOutcome>> outcomes(kFinishes);
  for (int i = 0; i < kFinishes; ++i) {
    auto row = batcher_test_row("k" + std::to_string(i), "req");
    row.state = i % 2 == 0 ? MGW_IDEMPOTENCY_DONE : MGW_IDEMPOTENCY_FREE;
    batcher.finish(row, [&outcomes, i](plugins::IdempotencyFinishOutcome o) {
      outcomes[static_cast<std::size_t>(i)].set_value(std::move(o));
    });
  }
  for (auto& o : outcomes) {
    auto f = o.get_future();
    ASSERT_EQ(f.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    EXPECT_EQ(f.get().kind, FinishKind::done);
  }
  EXPECT_EQ(store.rows.load(), static_cast<std::size_t>(kFinishes));
  EXPECT_LT(store.calls.load(), kFinishes / 4) << "finishes handed over within the linger share batches";
}

// A lone finish is not held for company longer than the linger (bounded
// here generously: the machine may be busy), and a claim that arrives while
// finishes linger is written at once, without them.
TEST(ClaimBatcher, ALoneFinishIsWrittenAfterTheLingerAndAClaimDoesNotWaitForIt) {
  FakeStore store;
  net::BlockingPool pool(1);
  ClaimBatcher batcher(store, pool);
  TwoLoops loops;
  std::promise<ClaimBatcher::Clock::time_point> written;
  auto row = batcher_test_row("lone", "req");
  row.state = MGW_IDEMPOTENCY_DONE;
  const auto handed = ClaimBatcher::Clock::now();
  batcher.finish(
      row, [&written](plugins::IdempotencyFinishOutcome) { written.set_value(ClaimBatcher::Clock::now()); });
  // The claim goes while the finish lingers: one call, the claim's alone.
  const auto seen = claim_from_two_loops(batcher, loops, 2);
  EXPECT_EQ(seen[1].outcome.kind, Kind::claimed);
  auto f = written.get_future();
  ASSERT_EQ(f.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  const auto waited = f.get() - handed;
  EXPECT_GE(waited, ClaimBatcher::kFinishLinger);
  EXPECT_LT(waited, std::chrono::seconds(2));
  EXPECT_EQ(store.rows.load(), 3u);
}

// flush() writes the queued finishes and waits for them (a full batch of
// them here), and the destructor writes one handed over after it.
TEST(ClaimBatcher, FlushAndTheDestructorWriteEveryQueuedFinish) {
  FakeStore store;
  net::BlockingPool pool(2);
  std::atomic<int> answered{0};
  {
    ClaimBatcher batcher(store, pool);
    for (std::size_t i = 0; i < ClaimBatcher::kFinishBatchRows; ++i) {
      auto row = batcher_test_row("full" + std::to_string(i), "req");
      row.state = MGW_IDEMPOTENCY_FREE;
      batcher.finish(row, [&answered](plugins::IdempotencyFinishOutcome) { ++answered; });
    }
    batcher.flush();
    EXPECT_EQ(answered.load(), static_cast<int>(ClaimBatcher::kFinishBatchRows));
    auto row = batcher_test_row("last", "req");
    row.state = MGW_IDEMPOTENCY_DONE;
    batcher.finish(row, [&answered](plugins::IdempotencyFinishOutcome) { ++answered; });
  }  // the destructor writes "last"
  EXPECT_EQ(answered.load(), static_cast<int>(ClaimBatcher::kFinishBatchRows) + 1);
  EXPECT_EQ(store.rows.load(), ClaimBatcher::kFinishBatchRows + 1);
}

// The batcher over a real sqlite plugin, with its whole table and as a
// plugin of ABI 1.9 (no batch hooks: one call per row), gives the same
// outcomes.
class ClaimBatcherStorage : public ::testing::TestWithParam<bool> {};

TEST_P(ClaimBatcherStorage, ClaimsAndFinishesHaveTheSingleCallOutcomes) {
  const bool old_table = GetParam();
  testing::TempStorage temp;
  auto lib = plugins::PluginLibrary::load(MGW_SQLITE_PLUGIN, MGW_KIND_STORAGE);
  plugins::Storage storage(lib, nlohmann::json{{"path", (temp.dir / "b.db").string()}},
                           old_table ? MGW_STORAGE_HOOKS_SIZE_1_9 : sizeof(mgw_storage_hooks));
  EXPECT_EQ(storage.batches_idempotency(), !old_table);
  EXPECT_TRUE(storage.supports_idempotency());

  // Direct: a new key, the same key again in the batch, a key held from before.
  ASSERT_FALSE(storage.claim_idempotency(batcher_test_row("before", "req_0"), 2000));
  auto out = storage.claim_idempotency_batch(
      {batcher_test_row("a", "req_1"), batcher_test_row("a", "req_2"), batcher_test_row("before", "req_3")},
      2000);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].kind, Kind::claimed);
  ASSERT_EQ(out[1].kind, Kind::held);
  EXPECT_EQ(out[1].held.owner, "req_1") << "the second sees the first's claim";
  EXPECT_EQ(out[1].held.state, MGW_IDEMPOTENCY_PENDING);
  ASSERT_EQ(out[2].kind, Kind::held);
  EXPECT_EQ(out[2].held.owner, "req_0");

  // Finish: complete "a" (its owner), release "before", complete a lapsed one.
  auto done = batcher_test_row("a", "req_1");
  done.state = MGW_IDEMPOTENCY_DONE;
  done.response = "{\"status\":200}";
  auto freed = batcher_test_row("before", "req_0");
  freed.state = MGW_IDEMPOTENCY_FREE;
  auto lapsed = batcher_test_row("a", "req_2");
  lapsed.state = MGW_IDEMPOTENCY_DONE;
  const auto fin = storage.finish_idempotency_batch({done, freed, lapsed});
  ASSERT_EQ(fin.size(), 3u);
  EXPECT_EQ(fin[0].kind, FinishKind::done);
  EXPECT_EQ(fin[1].kind, FinishKind::done);
  EXPECT_EQ(fin[2].kind, FinishKind::lapsed);

  // Through the batcher from two loops: "a" replays its answer, "before" is free again.
  ClaimBatcher::StorageStore store(storage);
  net::BlockingPool pool(2);
  ClaimBatcher batcher(store, pool);
  TwoLoops loops;
  auto a = net::asio::co_spawn(
      loops.a,
      [&]() -> net::Task<plugins::IdempotencyClaimOutcome> {
        co_return co_await batcher.claim(batcher_test_row("a", "req_4"));
      },
      net::asio::use_future);
  auto b = net::asio::co_spawn(
      loops.b,
      [&]() -> net::Task<plugins::IdempotencyClaimOutcome> {
        co_return co_await batcher.claim(batcher_test_row("before", "req_5"));
      },
      net::asio::use_future);
  const auto ra = a.get();
  ASSERT_EQ(ra.kind, Kind::held);
  EXPECT_EQ(ra.held.state, MGW_IDEMPOTENCY_DONE);
  EXPECT_EQ(ra.held.response, "{\"status\":200}");
  EXPECT_EQ(b.get().kind, Kind::claimed);
}

INSTANTIATE_TEST_SUITE_P(Tables, ClaimBatcherStorage, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Abi1_9NoBatchHooks") : std::string("Abi1_12");
                         });

}  // namespace
}  // namespace modelgw::idempotency
