// A lock for critical sections of a few hundred nanoseconds taken by every
// request (the budget ledger): a std::mutex that is contended sends both
// threads through futex system calls, which cost more than the work it
// guards. This one spins briefly, then yields the CPU, so it stays cheap
// with as many threads as cores and still makes progress with more.
#pragma once

#include <atomic>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace modelgw::util {

class SpinMutex {
 public:
  void lock() noexcept {
    for (int spins = 0;; ++spins) {
      if (!locked_.exchange(true, std::memory_order_acquire)) return;
      while (locked_.load(std::memory_order_relaxed)) {
        if (spins++ < 64) {
          pause();
        } else {
          std::this_thread::yield();
        }
      }
    }
  }
  bool try_lock() noexcept { return !locked_.exchange(true, std::memory_order_acquire); }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  static void pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
  }
  std::atomic<bool> locked_{false};
};

}  // namespace modelgw::util
