#include "logging/line_writer.h"

#include "util/thread_name.h"

#include <poll.h>
#include <unistd.h>
#include <cerrno>
#include <utility>

namespace modelgw::logging {

LineWriter::LineWriter(int fd, std::function<std::string(std::uint64_t)> dropped_line,
                       std::size_t max_pending)
    : fd_(fd), dropped_line_(std::move(dropped_line)), max_pending_(max_pending) {
  pending_.reserve(kWakeBytes * 2);
  thread_ = std::thread([this] {
    util::set_thread_name("mgw-log");
    run();
  });
}

LineWriter::~LineWriter() {
  stop();
}

void LineWriter::append(std::string_view lines) {
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    if (stopped_) {
      write_all(lines);  // after stop(): the caller writes (shutdown messages)
      return;
    }
    if (pending_.size() + lines.size() > max_pending_) {
      ++dropped_;
      return;
    }
    // Only the first line after a rest, or the append that crosses the
    // mark, wakes the writer.
    wake = idle_ || (pending_.size() < kWakeBytes && pending_.size() + lines.size() >= kWakeBytes);
    idle_ = false;
    pending_.append(lines);
  }
  if (wake) wake_.notify_one();
}

void LineWriter::flush() {
  {
    std::lock_guard lock(mutex_);
    if (pending_.empty()) return;
    urgent_ = true;
  }
  wake_.notify_one();
}

void LineWriter::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

std::uint64_t LineWriter::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

void LineWriter::run() {
  std::string batch;
  batch.reserve(kWakeBytes * 2);
  std::unique_lock lock(mutex_);
  bool quiet = false;  // the last interval brought no line
  while (true) {
    if (quiet && pending_.empty() && !stopping_ && !urgent_ && dropped_ == dropped_reported_) {
      // A whole interval brought nothing: sleep until a line comes (append
      // wakes the first), not every interval, so an idle process does not
      // wake 50 times a second; under steady traffic no append pays for a
      // wake-up.
      idle_ = true;
      wake_.wait(lock, [&] { return stopping_ || urgent_ || !pending_.empty(); });
      idle_ = false;
    }
    wake_.wait_for(lock, kFlushInterval,
                   [&] { return stopping_ || urgent_ || pending_.size() >= kWakeBytes; });
    quiet = pending_.empty();
    batch.swap(pending_);
    urgent_ = false;
    const bool last = stopping_;
    std::string dropped_note;
    if (dropped_ != dropped_reported_) {
      dropped_note = dropped_line_(dropped_ - dropped_reported_);
      dropped_reported_ = dropped_;
    }
    // The last batch is written under the mutex: an append racing with it
    // then writes after it, directly (stopped_).
    if (!last) lock.unlock();
    if (!batch.empty()) write_all(batch);
    if (!dropped_note.empty()) write_all(dropped_note);
    batch.clear();
    if (last) {
      stopped_ = true;
      return;
    }
    lock.lock();
  }
}

void LineWriter::write_all(std::string_view bytes) const {
  constexpr int kMaxWaits = 50;
  int waits = 0;
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN && ++waits <= kMaxWaits) {
      pollfd p{fd_, POLLOUT, 0};
      ::poll(&p, 1, 100);  // a non-blocking stderr: wait for room, 5 s at most per batch
    } else {
      return;  // closed or broken: nothing more can be written
    }
  }
}

}  // namespace modelgw::logging
