// Writes usage records off the response path, and loses none: request threads
// enqueue, one writer thread stores them through the storage plugin in
// batches. A batch storage refuses goes to the local journal (usage_journal.h)
// and is replayed, exactly once by request_id, when storage answers again.
// When the journal cannot be written either (disk full), recording() turns
// false and the chat endpoint refuses billable requests (503) until a record
// can be kept again; the records already queued stay in memory meanwhile.
// Each change of state is one log line, never one per attempt.
#pragma once

#include "plugins/storage.h"
#include "usage/usage_journal.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace modelgw::usage {

struct WriterOptions {
  int flush_interval_ms = 20;        // a queued record waits at most this long for its batch
  std::size_t batch_size = 256;      // ...or is written as soon as this many are queued
  std::size_t queue_limit = 100000;  // records in memory; at it, billable requests get 503
};

// How recording stands, for /readyz and the log.
struct WriterStatus {
  const char* state = "storing";  // "storing", "journaling" (storage failing), "unrecordable"
  std::size_t queued = 0;         // in memory, the batch being written included
  std::uint64_t journal_records = 0;
  std::uint64_t journal_bytes = 0;
  std::uint64_t written = 0;  // stored since start, replays included
};

class UsageWriter {
 public:
  // Stores a batch (all or none) or throws.
  using Store = std::function<void(const std::vector<plugins::UsageRow>&)>;

  UsageWriter(Store store, std::unique_ptr<UsageJournal> journal, WriterOptions options);
  UsageWriter(plugins::Storage& storage, std::unique_ptr<UsageJournal> journal, WriterOptions options);
  ~UsageWriter();
  UsageWriter(const UsageWriter&) = delete;
  UsageWriter& operator=(const UsageWriter&) = delete;

  void start();
  // Never blocks on storage and never drops: a request that was served is
  // recorded whatever the queue holds (admission is where the limit bites).
  void enqueue(plugins::UsageRow row);
  // False while a new record could not be kept (the journal fails) or the
  // queue is at its limit: billable requests are refused then. Lock-free.
  bool recording() const { return recording_.load(std::memory_order_relaxed); }
  // Writes everything queued (to storage, else the journal), then stops the
  // thread. Idempotent.
  void stop();

  WriterStatus status() const;
  std::uint64_t written() const;
  // How many enqueues woke the writer (a futex call on the enqueuing loop):
  // the first record after a rest, a full batch, a queue past half its limit.
  std::uint64_t wakeups() const;

 private:
  enum class State { storing, journaling, unrecordable };

  void run();
  // Stores or journals one batch taken off the queue (lock released while
  // it works); false when neither would take it and it went back in front.
  bool write_batch(std::unique_lock<std::mutex>& lock);
  bool store(const std::vector<plugins::UsageRow>& rows, std::string& why);
  void replay_journal(std::unique_lock<std::mutex>& lock);
  void set_state(State next, const std::string& why);
  void update_recording();

  Store store_;
  std::unique_ptr<UsageJournal> journal_;
  WriterOptions options_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<plugins::UsageRow> queue_;
  std::size_t in_flight_ = 0;
  State state_ = State::storing;
  std::chrono::milliseconds backoff_;
  std::chrono::steady_clock::time_point next_retry_{};
  std::chrono::steady_clock::time_point last_report_{};
  bool stopping_ = false;
  bool idle_ = false;  // the writer rests with nothing queued: the next enqueue wakes it
  std::uint64_t wakeups_ = 0;
  std::uint64_t written_ = 0;
  std::uint64_t journal_records_ = 0;  // copies for status(), updated under the lock
  std::uint64_t journal_bytes_ = 0;
  std::atomic<bool> recording_{true};
  std::thread thread_;
};

}  // namespace modelgw::usage
