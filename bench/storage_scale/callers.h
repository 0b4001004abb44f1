// Concurrent callers, the way requests reach the store in a gateway: each
// instance gets `threads` threads, each running its own event loop (as the
// gateway's loops do) with one coroutine making `per_thread` requests one
// after another. All threads start together; the run's wall time is from
// that start until the last one ends.
#pragma once

#include "net/asio.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace storage_scale {

using Clock = std::chrono::steady_clock;

inline double micros(Clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

// What one thread measured, in microseconds.
struct Samples {
  std::vector<double> step;   // the step on the request path
  std::vector<double> after;  // what follows the answer (the idempotency keep), when there is one
  std::int64_t refused = 0;   // requests the step refused or failed
  std::string first_refusal;  // what the first of them was told

  void refuse(std::string why) {
    if (refused++ == 0) first_refusal = std::move(why);
  }
};

struct CallerRun {
  Samples samples;  // every thread's, together
  double seconds = 0;
  std::int64_t requests = 0;
};

// One request: instance index, thread index (within the instance), request
// index (within the thread).
using Request = std::function<modelgw::net::Task<void>(int instance, int thread, int i, Samples& out)>;

// Runs `per_thread` requests on each of `threads` threads of each of
// `instances` instances at once. An exception in a request ends its thread
// and is rethrown here once every thread ended.
CallerRun run_callers(int instances, int threads, int per_thread, const Request& request);

// The p-th fraction of `v` (0.5, 0.99), 0 for none.
double percentile(std::vector<double> v, double p);

}  // namespace storage_scale
