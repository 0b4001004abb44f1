#include "shutdown.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace fake_upstream {
namespace {
std::atomic<bool> gStop{false};
// Short slices rather than a shared condition variable: a thousand streams
// sleeping at once must not contend on one mutex.
constexpr int kSliceMs = 50;
}  // namespace

void requestStop() {
  gStop.store(true, std::memory_order_relaxed);
}

bool stopRequested() {
  return gStop.load(std::memory_order_relaxed);
}

bool sleepUnlessStopped(int ms) {
  while (ms > 0) {
    if (stopRequested()) return false;
    const int slice = std::min(ms, kSliceMs);
    std::this_thread::sleep_for(std::chrono::milliseconds(slice));
    ms -= slice;
  }
  return !stopRequested();
}

}  // namespace fake_upstream
