#include "util/single_flight.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace modelgw::util {
namespace {

TEST(SingleFlight, ConcurrentMissesShareOneFetch) {
  SingleFlight<int> flight;
  std::atomic<int> fetches{0};
  std::atomic<int> sum{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      sum += flight.run("k", [&] {
        ++fetches;
        // Long enough for the other threads to arrive while this one runs.
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        return 7;
      });
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(sum.load(), 56);
  EXPECT_LT(fetches.load(), 8);
  EXPECT_GE(fetches.load(), 1);
}

TEST(SingleFlight, DifferentKeysFetchSeparately) {
  SingleFlight<int> flight;
  EXPECT_EQ(flight.run("a", [] { return 1; }), 1);
  EXPECT_EQ(flight.run("b", [] { return 2; }), 2);
}

TEST(SingleFlight, AFailureReachesTheCallerAndTheNextCallFetchesAgain) {
  SingleFlight<int> flight;
  EXPECT_THROW(flight.run("k", []() -> int { throw std::runtime_error("storage down"); }),
               std::runtime_error);
  EXPECT_EQ(flight.run("k", [] { return 3; }), 3);
}

}  // namespace
}  // namespace modelgw::util
