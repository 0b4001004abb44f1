#include "usage/usage_writer.h"

#include <spdlog/spdlog.h>

#include <vector>

namespace modelgw::usage {

UsageWriter::UsageWriter(plugins::Storage& storage, int flush_interval_ms, std::size_t batch_size,
                         std::size_t queue_limit)
    : storage_(storage), interval_(flush_interval_ms), batch_size_(batch_size), queue_limit_(queue_limit) {}

UsageWriter::~UsageWriter() {
  stop();
}

void UsageWriter::start() {
  thread_ = std::thread([this] { run(); });
}

void UsageWriter::enqueue(plugins::UsageRow row) {
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    if (queue_.size() >= queue_limit_) {
      queue_.pop_front();
      ++dropped_;
    }
    queue_.push_back(std::move(row));
    wake = queue_.size() >= batch_size_;
  }
  if (wake) wake_.notify_one();
}

void UsageWriter::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (dropped_ > 0) spdlog::error("usage writer dropped {} records while storage was unavailable", dropped_);
}

// Writes one batch with the lock released; on failure puts it back in front
// and reports false so the caller backs off.
bool UsageWriter::flush_some(std::unique_lock<std::mutex>& lock) {
  const std::size_t n = std::min(batch_size_, queue_.size());
  std::vector<plugins::UsageRow> batch(
      std::make_move_iterator(queue_.begin()),
      std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(n)));
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
  lock.unlock();
  bool ok = true;
  try {
    storage_.insert_usage(batch);
  } catch (const std::exception& e) {
    spdlog::error("writing {} usage records failed, will retry: {}", batch.size(), e.what());
    ok = false;
  }
  lock.lock();
  if (ok) {
    written_ += batch.size();
  } else {
    for (auto it = batch.rbegin(); it != batch.rend(); ++it) queue_.push_front(std::move(*it));
  }
  return ok;
}

void UsageWriter::run() {
  std::unique_lock lock(mutex_);
  auto backoff = interval_;
  int failures_while_stopping = 0;
  while (true) {
    wake_.wait_for(lock, backoff, [this] { return stopping_ || queue_.size() >= batch_size_; });
    bool ok = true;
    while (!queue_.empty() && ok) ok = flush_some(lock);
    backoff = ok ? interval_ : std::min(backoff * 2, std::chrono::milliseconds(5000));
    if (stopping_) {
      if (queue_.empty()) return;
      // Storage is failing at shutdown: try a few times, then report what is lost.
      if (!ok && ++failures_while_stopping >= 5) {
        dropped_ += queue_.size();
        queue_.clear();
        return;
      }
    }
  }
}

std::uint64_t UsageWriter::written() const {
  std::lock_guard lock(mutex_);
  return written_;
}

std::uint64_t UsageWriter::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

}  // namespace modelgw::usage
