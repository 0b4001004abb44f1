// The checks behind GET /readyz besides usage recording: storage reachable,
// the JWT keyset usable (when JWTs are on), not draining. Storage and the
// keyset are probed on the blocking pool, at most once per `ttl`, whatever
// the probe rate: a load balancer polling every instance every second costs
// the database one cheap indexed read per instance per ttl, and the event
// loop nothing. While a probe runs, other callers get the last result.
#pragma once

#include "net/blocking_pool.h"
#include "plugins/storage.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>

namespace modelgw::api {

struct ReadinessChecks {
  // Answers one cheap read, or throws (a StorageError when unreachable).
  std::function<void()> storage_probe;
  // Whether the keyset can be had (may fetch it); empty when JWTs are off.
  std::function<bool()> keyset_probe;
  const std::atomic<bool>* draining = nullptr;  // set on SIGTERM; nullptr: never drains
  std::size_t plugins_loaded = 0;               // start-up fails when one does not load
  std::chrono::milliseconds ttl{1000};
};

// What the last probe found.
struct ReadinessState {
  enum class Storage { unknown, reachable, unreachable, failing } storage = Storage::reachable;
  bool jwt_enabled = false;
  bool keyset_ok = true;
  bool draining = false;
  std::size_t plugins_loaded = 0;
  std::int64_t age_ms = 0;  // how old the probe result is
  bool ready() const { return storage == Storage::reachable && keyset_ok && !draining; }
};

const char* storage_state_name(ReadinessState::Storage s);

class ReadinessProbe {
 public:
  explicit ReadinessProbe(ReadinessChecks checks) : checks_(std::move(checks)) {}

  // Probes (off the loop) when the last result is older than ttl and no
  // probe is running; otherwise answers at once with the last result.
  net::Task<ReadinessState> current(net::BlockingPool& blocking);

  // The blocking part, exposed for tests.
  ReadinessState probe_now() const;

 private:
  using Clock = std::chrono::steady_clock;
  ReadinessState with_live_fields(ReadinessState s, Clock::time_point now) const;

  ReadinessChecks checks_;
  mutable std::mutex mutex_;
  ReadinessState last_{ReadinessState::Storage::unknown};
  Clock::time_point probed_at_{};
  bool have_result_ = false;
  bool probing_ = false;
};

}  // namespace modelgw::api
