// One shared instance, eight threads, each with its own scope: instance hooks
// are called concurrently, a scope by one thread at a time.
#include "pii_harness.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace pii_test {
namespace {

class Concurrency : public ::testing::TestWithParam<Mode> {};

TEST_P(Concurrency, EightThreadsEachWithItsOwnScopeOnOneInstance) {
  const Mode mode = GetParam();
  Instance shared(mode);
  constexpr int kThreads = 8;
  constexpr int kRequests = 20;
  constexpr int kTexts = 10;
  std::atomic<int> failures{0};
  std::atomic<int> go{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ++go;
      while (go.load() < kThreads) std::this_thread::yield();  // start together
      for (int r = 0; r < kRequests; ++r) {
        Scope scope(shared);
        for (int x = 0; x < kTexts; ++x) {
          // Each text names values 0..x of this thread; value k is [EMAIL_k+1]
          // whenever it comes, in this scope.
          TextSpec spec;
          std::string expected;
          for (int k = x; k >= 0; --k) {
            spec.pii("email", "t" + std::to_string(t) + "-v" + std::to_string(k) + "@example.com").plain(" ");
            spec.pii("ssn", std::to_string(100000000 + t), k == 0).plain(";");
            expected += "[EMAIL_" + std::to_string(k + 1) + "] [SSN_1];";
          }
          const auto a = scope.apply(spec);
          bool ok = a->status == MGW_OK && a->rec.records.size() == spec.findings.size();
          switch (mode) {
            case Mode::block:
              ok = ok && a->rec.rejects.size() == 1 && a->rec.rejects[0] == "ssn";
              break;
            case Mode::mask:
              ok = ok && a->rec.replaces.size() == 1 && a->sent == expected;
              break;
            case Mode::flag:
              ok = ok && a->rec.calls() == spec.findings.size() && a->sent == spec.text;
              break;
          }
          if (!ok) ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, Concurrency, ::testing::ValuesIn(kAllModes), param_name);

}  // namespace
}  // namespace pii_test
