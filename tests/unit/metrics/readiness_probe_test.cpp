// GET /readyz's probe (api/readiness_probe.h): storage, keyset, draining.
#include "api/readiness_probe.h"
#include "plugins/storage.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

namespace modelgw::api {
namespace {

TEST(ReadinessProbe, ReadyWhenStorageAnswers) {
  ReadinessProbe probe({[] {}, {}, nullptr, 3});
  const auto s = probe.probe_now();
  EXPECT_EQ(s.storage, ReadinessState::Storage::reachable);
  EXPECT_TRUE(s.ready());
}

TEST(ReadinessProbe, NotReadyWhenStorageIsUnreachableOrFailing) {
  ReadinessProbe unreachable(
      {[] { throw plugins::StorageError(MGW_UNAVAILABLE, "storage: find api key failed (unavailable)"); },
       {},
       nullptr,
       1});
  auto s = unreachable.probe_now();
  EXPECT_EQ(s.storage, ReadinessState::Storage::unreachable);
  EXPECT_FALSE(s.ready());
  ReadinessProbe failing({[] { throw std::runtime_error("boom"); }, {}, nullptr, 1});
  s = failing.probe_now();
  EXPECT_EQ(s.storage, ReadinessState::Storage::failing);
  EXPECT_FALSE(s.ready());
}

TEST(ReadinessProbe, NotReadyWithoutTheKeysetWhenJwtsAreOn) {
  ReadinessProbe probe({[] {}, [] { return false; }, nullptr, 1});
  const auto s = probe.probe_now();
  EXPECT_TRUE(s.jwt_enabled);
  EXPECT_FALSE(s.keyset_ok);
  EXPECT_FALSE(s.ready());
}

TEST(ReadinessProbe, DrainingIsNotReady) {
  ReadinessState s;
  EXPECT_TRUE(s.ready());
  s.draining = true;
  EXPECT_FALSE(s.ready());
}

// Runs current() to completion on a private io_context (bounded wait).
ReadinessState current(ReadinessProbe& probe, net::BlockingPool& blocking) {
  net::asio::io_context io;
  std::promise<ReadinessState> done;
  net::asio::co_spawn(io, probe.current(blocking), [&](std::exception_ptr e, ReadinessState s) {
    if (e) {
      done.set_exception(e);
    } else {
      done.set_value(s);
    }
  });
  io.run_for(std::chrono::seconds(10));
  return done.get_future().get();
}

TEST(ReadinessProbe, ProbesStorageAtMostOncePerTtlAndReadsDrainingLive) {
  std::atomic<int> probes{0};
  std::atomic<bool> down{false};
  std::atomic<bool> draining{false};
  ReadinessProbe probe({[&] {
                          ++probes;
                          if (down) throw plugins::StorageError(MGW_UNAVAILABLE, "unavailable");
                        },
                        {},
                        &draining,
                        2,
                        std::chrono::milliseconds(200)});
  net::BlockingPool blocking{1};
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(current(probe, blocking).ready());
  EXPECT_EQ(probes.load(), 1) << "one probe per ttl, whatever the rate";
  draining = true;
  EXPECT_FALSE(current(probe, blocking).ready()) << "draining is read on every call";
  draining = false;
  down = true;
  EXPECT_TRUE(current(probe, blocking).ready()) << "within the ttl: the cached result";
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  const auto s = current(probe, blocking);
  EXPECT_EQ(s.storage, ReadinessState::Storage::unreachable);
  EXPECT_FALSE(s.ready());
  EXPECT_EQ(s.plugins_loaded, 2u);
  EXPECT_EQ(probes.load(), 2);
}

}  // namespace
}  // namespace modelgw::api
