// The background purge of expired rows in storage (idempotency keys, stored
// responses): every interval, on its own thread and so off the event loops,
// the storage's purge is called in batches until one comes back short, so a
// large backlog is removed without one long statement. A failure is logged
// once per change of state, not per attempt.
#pragma once

#include "util/periodic_thread.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace modelgw::util {

class BatchPurge {
 public:
  static constexpr std::int64_t kBatch = 1000;
  static constexpr int kMaxBatches = 100;  // per run; the rest waits for the next

  // Deletes up to `limit` rows that expired by `now_unix_ms`; returns how many.
  using PurgeBatch = std::function<std::int64_t(std::int64_t now_unix_ms, std::int64_t limit)>;

  // `area` and `rows` name the purge in the log: "<area>: purged 3 <rows>".
  BatchPurge(std::string area, std::string rows, PurgeBatch purge_batch);
  BatchPurge(const BatchPurge&) = delete;
  BatchPurge& operator=(const BatchPurge&) = delete;

  // Purges every `interval`, the first time after one interval.
  void start(std::string_view thread_name, std::chrono::milliseconds interval);
  void stop() { thread_.stop(); }  // idempotent

  // One run now, on the caller's thread: how many rows were removed. Throws
  // what the storage threw.
  std::int64_t purge_once();

 private:
  const std::string area_;
  const std::string rows_;
  const PurgeBatch purge_batch_;
  bool failing_ = false;  // the thread's alone
  PeriodicThread thread_;
};

}  // namespace modelgw::util
