// A background thread that runs one job again and again until stopped: the
// ledger keeper's lease upkeep, the idempotency purge, the audit writer. The
// job returns how long to wait before its next run (a fixed interval, or a
// backoff after a failure, or a long rest when it has nothing to do); wake()
// ends the wait early, so an owner with work for an idle job runs it now
// instead of on a timer; stop() wakes the thread at once, lets a running job
// finish, and joins.
#pragma once

#include "util/thread_name.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace modelgw::util {

class PeriodicThread {
 public:
  using Job = std::function<std::chrono::milliseconds()>;  // must not throw

  PeriodicThread() = default;
  ~PeriodicThread() { stop(); }
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

  // Runs `job` after `first_wait`, then after whatever each run returns, on
  // a thread called `name` (thread_name.h).
  void start(std::string_view name, std::chrono::milliseconds first_wait, Job job) {
    thread_ =
        std::thread([this, name = std::string(name), wait = first_wait, job = std::move(job)]() mutable {
          set_thread_name(name);
          std::unique_lock lock(mutex_);
          while (true) {
            wake_.wait_for(lock, wait, [this] { return stopping_ || woken_; });
            if (stopping_) return;
            woken_ = false;
            lock.unlock();
            wait = job();
            lock.lock();
          }
        });
  }

  // Runs the job now (or, while it runs, once more when it returns).
  // Thread-safe; never blocks on the job.
  void wake() {
    {
      std::lock_guard lock(mutex_);
      woken_ = true;
    }
    wake_.notify_one();
  }

  // True the first time it is called (started or not), so an owner's own
  // last steps run once.
  bool stop() {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return false;
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    return true;
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool woken_ = false;
  std::thread thread_;
};

}  // namespace modelgw::util
