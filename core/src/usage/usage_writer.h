// Writes usage records off the response path: request threads enqueue, one
// writer thread inserts batches through the storage plugin. stop() drains the
// queue, so a graceful shutdown loses nothing.
#pragma once

#include "plugins/storage.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>

namespace modelgw::usage {

class UsageWriter {
 public:
  UsageWriter(plugins::Storage& storage, int flush_interval_ms, std::size_t batch_size,
              std::size_t queue_limit);
  ~UsageWriter();
  UsageWriter(const UsageWriter&) = delete;
  UsageWriter& operator=(const UsageWriter&) = delete;

  void start();
  // Never blocks on storage. Past queue_limit (storage down for long) the
  // oldest records are dropped and counted, so memory stays bounded.
  void enqueue(plugins::UsageRow row);
  // Flushes everything queued, then stops the thread. Idempotent.
  void stop();

  std::uint64_t written() const;
  std::uint64_t dropped() const;

 private:
  void run();
  bool flush_some(std::unique_lock<std::mutex>& lock);

  plugins::Storage& storage_;
  std::chrono::milliseconds interval_;
  std::size_t batch_size_;
  std::size_t queue_limit_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<plugins::UsageRow> queue_;
  bool stopping_ = false;
  std::uint64_t written_ = 0;
  std::uint64_t dropped_ = 0;
  std::thread thread_;
};

}  // namespace modelgw::usage
