#include "util/thread_name.h"

#include "net/blocking_pool.h"
#include "util/periodic_thread.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

namespace modelgw::util {
namespace {

using namespace std::chrono_literals;

// Runs `f` on a thread of its own, so no test renames the runner's thread.
template <class F>
auto on_own_thread(F f) {
  auto result = std::async(std::launch::async, std::move(f));
  return result.get();
}

// The name a thread reads back after naming itself `name`.
std::string named(std::string name) {
  return on_own_thread([name] {
    set_thread_name(name);
    return thread_name();
  });
}

TEST(ThreadName, NamesTheCallingThreadAndCutsAtFifteenBytes) {
  EXPECT_EQ(named("mgw-test"), "mgw-test");
  EXPECT_EQ(named("mgw-a-name-longer-than-fifteen"), "mgw-a-name-long");
}

TEST(ThreadName, KindLeavesOffATrailingNumber) {
  EXPECT_EQ(thread_kind("mgw-loop-12"), "mgw-loop");
  EXPECT_EQ(thread_kind("mgw-usage"), "mgw-usage");
  EXPECT_EQ(thread_kind("mgw-key-purge"), "mgw-key-purge");
  EXPECT_EQ(thread_kind("name-"), "name-");
  EXPECT_EQ(thread_kind("name-1a"), "name-1a");
  EXPECT_EQ(thread_kind("7"), "7");
  EXPECT_EQ(thread_kind(""), "");
}

TEST(ThreadName, ScopedNameIsCopiedToThreadsStartedInsideAndThenRestored) {
  const auto [inner, child, after] = on_own_thread([] {
    set_thread_name("mgw-caller");
    std::string in, started;
    {
      ScopedThreadName scoped("mgw-scoped");
      in = thread_name();
      std::thread t([&started] { started = thread_name(); });
      t.join();
    }
    return std::tuple{in, started, thread_name()};
  });
  EXPECT_EQ(inner, "mgw-scoped");
  EXPECT_EQ(child, "mgw-scoped");  // Linux copies the creator's name
  EXPECT_EQ(after, "mgw-caller");
}

TEST(ThreadName, BlockingPoolThreadsAreNamedAndTheCallerKeepsItsName) {
  const auto [pool_thread, caller] = on_own_thread([] {
    set_thread_name("mgw-caller");
    net::BlockingPool pool(2);
    std::promise<std::string> seen;
    net::asio::post(pool.pool(), [&seen] { seen.set_value(thread_name()); });
    auto name = seen.get_future().get();
    pool.stop();
    return std::pair{name, thread_name()};
  });
  EXPECT_EQ(pool_thread, "mgw-blocking");
  EXPECT_EQ(caller, "mgw-caller");
}

TEST(ThreadName, PeriodicThreadRunsItsJobOnANamedThread) {
  std::promise<std::string> seen;
  bool first = true;
  PeriodicThread thread;
  thread.start("mgw-periodic", 0ms, [&] {
    if (first) seen.set_value(thread_name());
    first = false;
    return 1h;
  });
  EXPECT_EQ(seen.get_future().get(), "mgw-periodic");
  thread.stop();
}

// A job resting for an hour runs at once when woken (the audit writer's
// first event after a rest), and a wake during a run runs it once more.
TEST(PeriodicThreadTest, WakeRunsARestingJobNow) {
  std::mutex mutex;
  std::condition_variable ran;
  int runs = 0;
  PeriodicThread thread;
  thread.start("mgw-periodic", 1h, [&] {
    std::lock_guard lock(mutex);
    ++runs;
    ran.notify_all();
    return 1h;
  });
  std::unique_lock lock(mutex);
  EXPECT_FALSE(ran.wait_for(lock, 50ms, [&] { return runs > 0; })) << "ran before its first wait ended";
  for (int i = 1; i <= 3; ++i) {
    lock.unlock();
    thread.wake();
    lock.lock();
    EXPECT_TRUE(ran.wait_for(lock, 5s, [&] { return runs >= i; })) << "wake " << i << " did not run the job";
  }
  lock.unlock();
  thread.stop();
  EXPECT_EQ(runs, 3);
}

}  // namespace
}  // namespace modelgw::util
