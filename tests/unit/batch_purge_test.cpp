#include "util/batch_purge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace modelgw::util {
namespace {

using namespace std::chrono_literals;

TEST(BatchPurge, PurgesInBatchesUntilOneComesBackShort) {
  std::int64_t backlog = 2 * BatchPurge::kBatch + 500;
  std::vector<std::int64_t> limits;
  std::set<std::int64_t> nows;
  BatchPurge purge("test", "expired rows", [&](std::int64_t now, std::int64_t limit) {
    limits.push_back(limit);
    nows.insert(now);
    const std::int64_t removed = std::min(backlog, limit);
    backlog -= removed;
    return removed;
  });
  EXPECT_EQ(purge.purge_once(), 2 * BatchPurge::kBatch + 500);
  EXPECT_EQ(limits, std::vector<std::int64_t>(3, BatchPurge::kBatch));
  EXPECT_EQ(nows.size(), 1u) << "one run purges what expired by one moment";
  EXPECT_EQ(purge.purge_once(), 0);
}

TEST(BatchPurge, OneRunIsBounded) {
  int calls = 0;
  BatchPurge purge("test", "expired rows", [&](std::int64_t, std::int64_t limit) {
    ++calls;
    return limit;  // an endless backlog
  });
  EXPECT_EQ(purge.purge_once(), BatchPurge::kMaxBatches * BatchPurge::kBatch);
  EXPECT_EQ(calls, BatchPurge::kMaxBatches);
}

TEST(BatchPurge, RunsEveryIntervalThroughFailuresUntilStopped) {
  std::atomic<int> calls{0};
  BatchPurge purge("test", "expired rows", [&](std::int64_t, std::int64_t) -> std::int64_t {
    if (++calls % 2 == 1) throw std::runtime_error("the store refused");
    return 1;
  });
  purge.start("test-purge", 5ms);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (calls < 4 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  purge.stop();
  const int seen = calls;
  EXPECT_GE(seen, 4) << "a failed run does not end the purge";
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(calls, seen) << "nothing runs after stop()";
  purge.stop();  // again: nothing happens
}

}  // namespace
}  // namespace modelgw::util
