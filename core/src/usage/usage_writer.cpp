#include "usage/usage_writer.h"

#include "util/thread_name.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace modelgw::usage {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kMinBackoff = 100ms;
constexpr std::chrono::milliseconds kMaxBackoff = 5000ms;
// While storage fails, how often one line says how much waits in the journal.
constexpr std::chrono::seconds kReportEvery = 60s;
// SIGTERM with storage and journal both failing: attempts before giving up.
constexpr int kStopAttempts = 5;

const char* state_name(int s) {
  static constexpr const char* kNames[] = {"storing", "journaling", "unrecordable"};
  return kNames[s];
}

}  // namespace

UsageWriter::UsageWriter(Store store, std::unique_ptr<UsageJournal> journal, WriterOptions options)
    : store_(std::move(store)), journal_(std::move(journal)), options_(options), backoff_(kMinBackoff) {
  journal_records_ = journal_->records();
  journal_bytes_ = journal_->bytes();
  if (journal_records_ > 0) {
    spdlog::warn("usage journal {} holds {} records an earlier run could not store; replaying them",
                 journal_->path(), journal_records_);
  }
}

UsageWriter::UsageWriter(plugins::Storage& storage, std::unique_ptr<UsageJournal> journal,
                         WriterOptions options)
    : UsageWriter([&storage](const std::vector<plugins::UsageRow>& rows) { storage.insert_usage(rows); },
                  std::move(journal), options) {}

UsageWriter::~UsageWriter() {
  stop();
}

void UsageWriter::start() {
  thread_ = std::thread([this] {
    util::set_thread_name("mgw-usage");
    run();
  });
}

void UsageWriter::enqueue(plugins::UsageRow row) {
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(row));
    // The first record after a rest, a full batch, or a queue past half its
    // limit (spilled to the journal). Others wait for the batch's interval
    // without a wake-up (a futex call on the loop) each.
    wake = idle_ || queue_.size() >= options_.batch_size || queue_.size() > options_.queue_limit / 2;
    idle_ = false;
    if (wake) ++wakeups_;
    update_recording();
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
}

void UsageWriter::update_recording() {
  recording_.store(state_ != State::unrecordable && queue_.size() + in_flight_ < options_.queue_limit,
                   std::memory_order_relaxed);
}

bool UsageWriter::store(const std::vector<plugins::UsageRow>& rows, std::string& why) {
  try {
    store_(rows);
    return true;
  } catch (const std::exception& e) {
    why = e.what();
    return false;
  }
}

void UsageWriter::set_state(State next, const std::string& why) {
  if (next == state_) return;
  const State was = state_;
  state_ = next;
  last_report_ = Clock::now();
  const std::size_t queued = queue_.size() + in_flight_;
  switch (next) {
    case State::journaling:
      if (was == State::unrecordable) {
        spdlog::warn("usage records can be kept again (journal {}): chat requests are admitted ({} queued)",
                     journal_->path(), queued);
      } else {
        spdlog::warn(
            "usage records cannot be stored ({}); they go to the journal {} until storage answers ({} "
            "queued, {} journaled)",
            why, journal_->path(), queued, journal_records_);
      }
      break;
    case State::unrecordable:
      spdlog::error(
          "usage records can be neither stored nor journaled ({}): chat requests get 503 until one can be "
          "kept ({} records held in memory)",
          why, queued);
      break;
    case State::storing:
      if (was == State::unrecordable) {
        spdlog::warn("usage records are stored again: chat requests are admitted ({} queued)", queued);
        break;
      }
      spdlog::info("usage storage answers again; the journal {} is replayed and empty", journal_->path());
      break;
  }
  update_recording();
}

bool UsageWriter::write_batch(std::unique_lock<std::mutex>& lock) {
  // Storing: a batch at a time. Journaling (or storage not keeping up, the
  // queue past half its limit): everything queued in one append and one sync.
  // Unrecordable: storage is tried first, the journal second.
  const bool to_journal =
      state_ == State::journaling || (state_ == State::storing && queue_.size() > options_.queue_limit / 2);
  const std::size_t n = to_journal ? queue_.size() : std::min(options_.batch_size, queue_.size());
  std::vector<plugins::UsageRow> batch(
      std::make_move_iterator(queue_.begin()),
      std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(n)));
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
  in_flight_ = n;
  lock.unlock();
  std::string store_why;
  std::string journal_why;
  const bool stored = !to_journal && store(batch, store_why);
  const bool kept = !stored && journal_->append(batch, journal_why);
  lock.lock();
  in_flight_ = 0;
  if (stored) {
    written_ += n;
    if (state_ == State::unrecordable) {
      backoff_ = kMinBackoff;
      set_state(journal_->records() > 0 ? State::journaling : State::storing, "");
    }
  } else if (kept) {
    journal_records_ = journal_->records();
    journal_bytes_ = journal_->bytes();
    if (state_ == State::storing && !store_why.empty()) {
      next_retry_ = Clock::now() + backoff_;
      set_state(State::journaling, store_why);
    } else if (state_ == State::unrecordable) {
      set_state(State::journaling, "");
    }
  } else {
    for (auto it = batch.rbegin(); it != batch.rend(); ++it) queue_.push_front(std::move(*it));
    next_retry_ = Clock::now() + backoff_;
    backoff_ = std::min(backoff_ * 2, kMaxBackoff);
    set_state(State::unrecordable, journal_why);
  }
  update_recording();
  return stored || kept;
}

void UsageWriter::replay_journal(std::unique_lock<std::mutex>& lock) {
  lock.unlock();
  std::uint64_t replayed = 0;
  std::uint64_t skipped = 0;
  std::string why;
  const bool ok = journal_->replay(
      options_.batch_size,
      [this, &why](const std::vector<plugins::UsageRow>& rows) { return store(rows, why); }, replayed,
      skipped, why);
  lock.lock();
  written_ += replayed;
  journal_records_ = journal_->records();
  journal_bytes_ = journal_->bytes();
  if (skipped > 0) {
    spdlog::warn("usage journal {}: {} lines that are not records were skipped (a write cut by a crash?)",
                 journal_->path(), skipped);
  }
  if (ok) {
    backoff_ = kMinBackoff;
    if (replayed > 0)
      spdlog::info("usage journal {}: {} records replayed into storage", journal_->path(), replayed);
    if (state_ == State::journaling) set_state(State::storing, "");
  } else {
    next_retry_ = Clock::now() + backoff_;
    backoff_ = std::min(backoff_ * 2, kMaxBackoff);
  }
}

void UsageWriter::run() {
  std::unique_lock lock(mutex_);
  const std::chrono::milliseconds interval(options_.flush_interval_ms);
  int stop_failures = 0;
  bool quiet = false;  // the last interval's wait ended with nothing queued
  while (true) {
    const auto batch_ready = [this] {
      return stopping_ || queue_.size() >= options_.batch_size || queue_.size() > options_.queue_limit / 2;
    };
    if (state_ == State::unrecordable) {
      // Nothing to do but wait for the next attempt: records arriving meanwhile
      // must not wake this thread into a spin.
      wake_.wait_until(lock, next_retry_, [this] { return stopping_; });
    } else if (quiet && state_ == State::storing && queue_.empty() && journal_->records() == 0) {
      // A whole interval brought nothing: rest until a record comes (enqueue
      // wakes the first), not every interval (an idle gateway would wake 50
      // times a second), then give it the interval to gather its batch. Under
      // steady traffic no interval is empty, so no enqueue pays for a wake-up
      // before its response is written.
      idle_ = true;
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      idle_ = false;
      wake_.wait_for(lock, interval, batch_ready);
    } else {
      wake_.wait_for(lock, interval, batch_ready);
    }
    // Whichever wait ended, the interval brought records or it did not: after
    // a rest it did, so the next wait is an interval again, not a rest.
    quiet = queue_.empty();
    const auto now = Clock::now();
    const bool due = now >= next_retry_;
    if (journal_->records() > 0 && due) replay_journal(lock);
    bool ok = true;
    if (state_ != State::unrecordable || due) {
      while (!queue_.empty() && ok) ok = write_batch(lock);
    }
    if (state_ != State::storing && now - last_report_ >= kReportEvery) {
      last_report_ = now;
      spdlog::warn("usage: {}; {} records queued, {} in the journal ({} bytes)", state_name(int(state_)),
                   queue_.size(), journal_records_, journal_bytes_);
    }
    if (stopping_) {
      if (queue_.empty()) {
        // What was spilled while storage kept answering goes in now; after a
        // failure, the next run replays it.
        if (journal_->records() > 0 && state_ == State::storing) replay_journal(lock);
        return;
      }
      if (!ok && ++stop_failures >= kStopAttempts) {
        spdlog::error("usage: {} records are lost: neither storage nor the journal {} takes them",
                      queue_.size(), journal_->path());
        queue_.clear();
        return;
      }
      lock.unlock();
      std::this_thread::sleep_for(backoff_);
      lock.lock();
      next_retry_ = Clock::now();
    }
  }
}

WriterStatus UsageWriter::status() const {
  std::lock_guard lock(mutex_);
  WriterStatus s;
  s.state = state_name(static_cast<int>(state_));
  s.queued = queue_.size() + in_flight_;
  s.journal_records = journal_records_;
  s.journal_bytes = journal_bytes_;
  s.written = written_;
  return s;
}

std::uint64_t UsageWriter::wakeups() const {
  std::lock_guard lock(mutex_);
  return wakeups_;
}

std::uint64_t UsageWriter::written() const {
  std::lock_guard lock(mutex_);
  return written_;
}

}  // namespace modelgw::usage
