// The process side of budgets and rate limits: leases from a store that
// keeps the invariant (a fake with the storage plugin's arithmetic), held in
// memory, settled into charges, renewed, returned.
#include "budget/ledger.h"

#include "fake_lease_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

namespace {

using modelgw::budget::Account;
using modelgw::budget::Draw;
using modelgw::budget::Hold;
using modelgw::budget::Ledger;
using modelgw::budget::LedgerOptions;
using modelgw::budget::Shortfall;
using modelgw::budget::Window;
using modelgw::budget::testing::FakeStore;
using modelgw::plugins::LeaseGrant;
using modelgw::plugins::LeaseRequest;

struct LedgerTest : ::testing::Test {
  std::atomic<std::int64_t> now{1'800'000'000'000};  // 2027-01-15
  FakeStore store{[this] { return now.load(); }};
  LedgerOptions options{30000, 5000, 10, "test"};
  Ledger ledger{store, options, [this] { return now.load(); }};

  // Holds, refilling as the chat path does; false when refused.
  bool hold(const std::vector<Draw>& draws, Hold& out) {
    for (int round = 0; round < 4; ++round) {
      Shortfall s;
      if (ledger.try_hold(draws, out, s)) return true;
      if (!ledger.refill(*draws[s.index].account, s.needed)) return false;
    }
    return false;
  }
};

TEST_F(LedgerTest, FirstHoldTakesASliceOfTheLimitAndLaterOnesStayInMemory) {
  const Account budget{"budget:1", Window::month, 1'000'000};
  Hold h;
  ASSERT_TRUE(hold({{&budget, 1000}}, h));
  EXPECT_EQ(store.takes, 1);
  EXPECT_EQ(store.live_unsettled("budget:1"), 100'000);  // a tenth of the limit
  std::vector<mgw_ledger_charge> charges;
  ledger.settle(h, std::vector<std::int64_t>{700}, charges);
  ASSERT_EQ(charges.size(), 1u);
  EXPECT_EQ(charges[0].amount, 700);
  // 100 more holds of 900 fit in the slice's remainder? No: 99'300 / 900 = 110.
  for (int i = 0; i < 100; ++i) {
    Hold more;
    ASSERT_TRUE(hold({{&budget, 900}}, more));
    ledger.release(more);
  }
  EXPECT_EQ(store.takes, 1) << "the store is not touched per request";
}

TEST_F(LedgerTest, NearTheLimitLeasesShrinkToOneRequestAndThenRefuse) {
  const Account budget{"budget:2", Window::day, 10'000};
  std::vector<Hold> holds(12);
  int held = 0;
  for (auto& h : holds) held += hold({{&budget, 1000}}, h) ? 1 : 0;
  EXPECT_EQ(held, 10);
  EXPECT_LE(store.live_unsettled("budget:2"), 10'000);
}

TEST_F(LedgerTest, AHoldIsAllOrNothingAcrossLedgers) {
  const Account roomy{"budget:3", Window::month, 1'000'000};
  const Account tight{"rl:tenant:1:requests", Window::minute, 1};
  Hold first;
  ASSERT_TRUE(hold({{&roomy, 100}, {&tight, 1}}, first));
  Hold second;
  EXPECT_FALSE(hold({{&roomy, 100}, {&tight, 1}}, second));
  EXPECT_TRUE(second.empty());
  // Nothing of the refused hold stays on the roomy ledger: a hold of all the
  // lease's free part still fits.
  Hold all;
  Shortfall s;
  EXPECT_TRUE(ledger.try_hold(std::vector<Draw>{{&roomy, 100'000 - 100}}, all, s));
}

TEST_F(LedgerTest, SettlingLessFreesTheRestAndSettlingNothingMakesNoCharge) {
  const Account budget{"budget:4", Window::hour, 10'000};
  Hold h;
  ASSERT_TRUE(hold({{&budget, 10'000}}, h));
  std::vector<mgw_ledger_charge> charges;
  ledger.settle(h, std::vector<std::int64_t>{0}, charges);
  EXPECT_TRUE(charges.empty());
  Hold again;
  EXPECT_TRUE(hold({{&budget, 10'000}}, again)) << "a failed request gives its hold back";
}

TEST_F(LedgerTest, ADroppedHoldIsReleased) {
  const Account budget{"budget:5", Window::hour, 1000};
  {
    Hold h;
    ASSERT_TRUE(hold({{&budget, 1000}}, h));
  }
  Hold again;
  EXPECT_TRUE(hold({{&budget, 1000}}, again));
}

TEST_F(LedgerTest, ConcurrentHoldsNeverSpendPastTheLimit) {
  const Account budget{"budget:6", Window::month, 50'000};
  std::atomic<int> served{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        Hold h;
        if (!hold({{&budget, 1000}}, h)) continue;
        std::vector<mgw_ledger_charge> charges;
        ledger.settle(h, std::vector<std::int64_t>{1000}, charges);
        store.apply(charges);
        served.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(served.load(), 50);
  const std::int64_t window = modelgw::budget::window_start(Window::month, now.load());
  EXPECT_EQ(store.spent("budget:6", window), 50'000);
}

TEST_F(LedgerTest, TwoProcessesOnOneStoreShareTheLimit) {
  Ledger other{store, options, [this] { return now.load(); }};
  const Account budget{"budget:7", Window::day, 10'000};
  int served = 0;
  for (int i = 0; i < 30; ++i) {
    Ledger& l = i % 2 == 0 ? ledger : other;
    Hold h;
    bool ok = false;
    for (int round = 0; round < 4 && !ok; ++round) {
      Shortfall s;
      if (l.try_hold(std::vector<Draw>{{&budget, 1000}}, h, s)) {
        ok = true;
      } else if (!l.refill(budget, s.needed)) {
        break;
      }
    }
    if (!ok) continue;
    std::vector<mgw_ledger_charge> charges;
    l.settle(h, std::vector<std::int64_t>{1000}, charges);
    store.apply(charges);
    ++served;
  }
  EXPECT_LE(served, 10);
  EXPECT_GE(served, 9) << "near the limit, slices of one request let both processes use nearly all of it";
}

TEST_F(LedgerTest, IdleLeasesGoBackAndPastWindowsAreReturned) {
  const Account budget{"budget:8", Window::hour, 100'000};
  Hold h;
  ASSERT_TRUE(hold({{&budget, 100}}, h));
  std::vector<mgw_ledger_charge> charges;
  ledger.settle(h, std::vector<std::int64_t>{100}, charges);
  store.apply(charges);
  now += 6000;  // past lease_idle_ms
  ledger.maintain();
  EXPECT_EQ(store.returns, 1);
  EXPECT_EQ(store.live_unsettled("budget:8"), 0) << "the unused slice is free for other processes";
}

TEST_F(LedgerTest, ANewWindowStartsFromNothingSpent) {
  const Account budget{"budget:9", Window::hour, 1000};
  Hold h;
  ASSERT_TRUE(hold({{&budget, 1000}}, h));
  std::vector<mgw_ledger_charge> charges;
  ledger.settle(h, std::vector<std::int64_t>{1000}, charges);
  store.apply(charges);
  Hold refused;
  EXPECT_FALSE(hold({{&budget, 1}}, refused));
  now += 3'600'000;
  Hold next;
  EXPECT_TRUE(hold({{&budget, 1000}}, next));
}

TEST_F(LedgerTest, ALeaseThatCouldNotBeRenewedIsNotUsed) {
  const Account budget{"budget:10", Window::month, 1'000'000};
  Hold h;
  ASSERT_TRUE(hold({{&budget, 100}}, h));
  store.fail_renew = true;
  for (int i = 0; i < 3; ++i) {
    now += 10'000;
    ledger.maintain();
  }
  Hold more;
  Shortfall s;
  EXPECT_FALSE(ledger.try_hold(std::vector<Draw>{{&budget, 100}}, more, s))
      << "the store may have freed it: go back to the store";
}

TEST_F(LedgerTest, RemainingCountsWhatOthersHold) {
  Ledger other{store, options, [this] { return now.load(); }};
  const Account budget{"budget:11", Window::day, 10'000};
  Hold theirs;
  for (int round = 0; round < 2; ++round) {
    Shortfall s;
    if (other.try_hold(std::vector<Draw>{{&budget, 5000}}, theirs, s)) break;
    ASSERT_TRUE(other.refill(budget, s.needed));
  }
  ASSERT_TRUE(ledger.refill(budget, 100));
  EXPECT_LE(ledger.remaining(budget), 5000);
}

}  // namespace
