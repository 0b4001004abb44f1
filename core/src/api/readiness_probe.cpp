#include "api/readiness_probe.h"

#include "plugins/storage_failure.h"

#include <spdlog/spdlog.h>

#include <optional>

namespace modelgw::api {

const char* storage_state_name(ReadinessState::Storage s) {
  switch (s) {
    case ReadinessState::Storage::unknown:
      return "unknown";
    case ReadinessState::Storage::reachable:
      return "reachable";
    case ReadinessState::Storage::unreachable:
      return "unreachable";
    case ReadinessState::Storage::failing:
      return "failing";
  }
  return "unknown";
}

ReadinessState ReadinessProbe::probe_now() const {
  ReadinessState s;
  if (checks_.storage_probe) {
    try {
      checks_.storage_probe();
      s.storage = ReadinessState::Storage::reachable;
    } catch (const std::exception& e) {
      // The plugin's text may name hosts and users: logged, never answered.
      s.storage = plugins::storage_unreachable(e) ? ReadinessState::Storage::unreachable
                                                  : ReadinessState::Storage::failing;
      spdlog::warn("readiness: storage probe failed: {}", e.what());
    }
  }
  s.jwt_enabled = static_cast<bool>(checks_.keyset_probe);
  if (s.jwt_enabled) {
    try {
      s.keyset_ok = checks_.keyset_probe();
    } catch (...) {
      s.keyset_ok = false;
    }
  }
  return s;
}

ReadinessState ReadinessProbe::with_live_fields(ReadinessState s, Clock::time_point now) const {
  s.jwt_enabled = static_cast<bool>(checks_.keyset_probe);
  s.draining = checks_.draining != nullptr && checks_.draining->load(std::memory_order_relaxed);
  s.plugins_loaded = checks_.plugins_loaded;
  s.age_ms =
      have_result_ ? std::chrono::duration_cast<std::chrono::milliseconds>(now - probed_at_).count() : 0;
  if (!have_result_) {
    s.storage = ReadinessState::Storage::unknown;
    s.keyset_ok = !s.jwt_enabled;
  }
  return s;
}

net::Task<ReadinessState> ReadinessProbe::current(net::BlockingPool& blocking) {
  {
    std::lock_guard lock(mutex_);
    const auto now = Clock::now();
    if ((have_result_ && now - probed_at_ < checks_.ttl) || probing_) co_return with_live_fields(last_, now);
    probing_ = true;
  }
  std::optional<ReadinessState> fresh;
  try {
    fresh = co_await net::offload(blocking, [this] { return probe_now(); });
  } catch (const std::exception& e) {
    spdlog::warn("readiness: the probe could not run: {}", e.what());  // the pool is stopping
  }
  std::lock_guard lock(mutex_);
  probing_ = false;
  if (!fresh) co_return with_live_fields(last_, Clock::now());
  last_ = *fresh;
  probed_at_ = Clock::now();
  have_result_ = true;
  co_return with_live_fields(last_, probed_at_);
}

}  // namespace modelgw::api
