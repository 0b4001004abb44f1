#include "idempotency/claim_batcher.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>
#include <utility>

namespace modelgw::idempotency {
namespace {

std::int64_t batcher_now_unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// Moves at most `limit` entries from the front of `queue` to `out`.
template <typename Entry>
void take_batch(std::deque<Entry>& queue, std::vector<Entry>& out, std::size_t limit) {
  const std::size_t n = std::min(queue.size(), limit);
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(std::move(queue.front()));
    queue.pop_front();
  }
}

// The batch's rows, moved out of its entries (a waiter keeps only its handler).
template <typename Entry>
std::vector<plugins::IdempotencyRow> batch_rows(std::vector<Entry>& batch) {
  std::vector<plugins::IdempotencyRow> rows;
  rows.reserve(batch.size());
  for (auto& e : batch) rows.push_back(std::move(e.row));
  return rows;
}

// Every row of a batch that failed as a whole fails with the batch's error.
template <typename Outcome, typename Call>
std::vector<Outcome> batch_outcomes(std::size_t rows, Call&& call) {
  std::string error;
  try {
    auto outcomes = call();
    if (outcomes.size() == rows) return outcomes;
    error = "storage: a batch of " + std::to_string(rows) + " rows was answered with " +
            std::to_string(outcomes.size());
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "storage: an unknown error";
  }
  std::vector<Outcome> failed(rows);
  for (auto& f : failed) f.error = error;
  return failed;
}

}  // namespace

ClaimBatcher::~ClaimBatcher() {
  flush();
}

void ClaimBatcher::flush() {
  std::unique_lock lock(mutex_);
  stopping_ = true;
  wake_.notify_all();
  idle_.wait(lock, [this] { return !running_; });
}

std::uint64_t ClaimBatcher::batches() const {
  std::lock_guard lock(mutex_);
  return batches_;
}

void ClaimBatcher::start_or_wake() {
  if (running_) {
    wake_.notify_one();
    return;
  }
  running_ = true;
  net::asio::post(blocking_.pool(), [this] { run(); });
}

bool ClaimBatcher::finishes_due(Clock::time_point now) const {
  return !finishes_.empty() && (stopping_ || finishes_.size() >= kFinishBatchRows ||
                                now - finishes_.front().queued >= kFinishLinger);
}

net::Task<plugins::IdempotencyClaimOutcome> ClaimBatcher::claim(plugins::IdempotencyRow row) {
  using Outcome = plugins::IdempotencyClaimOutcome;
  co_return co_await net::asio::async_initiate<decltype(net::use_awaitable), void(Outcome)>(
      [this, &row](auto handler) {
        using Handler = decltype(handler);
        // Resumes the waiting coroutine on its own executor.
        struct HandlerWaiter final : ClaimWaiter {
          explicit HandlerWaiter(Handler h) : handler(std::move(h)) {}
          Handler handler;
          void complete(Outcome outcome) override {
            auto executor = net::asio::get_associated_executor(handler);
            net::asio::post(executor, [h = std::move(handler), o = std::move(outcome)]() mutable {
              std::move(h)(std::move(o));
            });
          }
        };
        std::lock_guard lock(mutex_);
        claims_.push_back(ClaimEntry{std::move(row), std::make_unique<HandlerWaiter>(std::move(handler))});
        start_or_wake();
      },
      net::use_awaitable);
}

void ClaimBatcher::finish(plugins::IdempotencyRow row, FinishDone done) {
  std::lock_guard lock(mutex_);
  finishes_.push_back(FinishEntry{std::move(row), std::move(done), Clock::now()});
  // A lingering thread wakes for a full batch; a young one waits its turn.
  if (!running_ || finishes_.size() >= kFinishBatchRows) start_or_wake();
}

void ClaimBatcher::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    const auto now = Clock::now();
    const bool finish_now = finishes_due(now);
    if (claims_.empty() && !finish_now) {
      if (finishes_.empty()) {
        running_ = false;
        idle_.notify_all();  // under the lock: the destructor may run as soon as it is released
        return;
      }
      // Only young finishes: wait for company (or a claim) until the oldest is due.
      wake_.wait_until(lock, finishes_.front().queued + kFinishLinger);
      continue;
    }
    std::vector<FinishEntry> finishes;
    std::vector<ClaimEntry> claims;
    if (finish_now) take_batch(finishes_, finishes, kMaxBatchRows);
    take_batch(claims_, claims, kMaxBatchRows);
    lock.unlock();
    // Finishes first: a key freed here is free for a claim of this round.
    if (!finishes.empty()) run_finishes(finishes);
    if (!claims.empty()) run_claims(claims);
    lock.lock();
  }
}

void ClaimBatcher::run_claims(std::vector<ClaimEntry>& batch) {
  const auto rows = batch_rows(batch);
  auto outcomes = batch_outcomes<plugins::IdempotencyClaimOutcome>(
      rows.size(), [&] { return store_.claim_batch(rows, batcher_now_unix_ms()); });
  {
    std::lock_guard lock(mutex_);
    ++batches_;
  }
  for (std::size_t i = 0; i < batch.size(); ++i) batch[i].waiter->complete(std::move(outcomes[i]));
}

void ClaimBatcher::run_finishes(std::vector<FinishEntry>& batch) {
  const auto rows = batch_rows(batch);
  auto outcomes = batch_outcomes<plugins::IdempotencyFinishOutcome>(
      rows.size(), [&] { return store_.finish_batch(rows); });
  {
    std::lock_guard lock(mutex_);
    ++batches_;
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    try {
      batch[i].done(std::move(outcomes[i]));
    } catch (...) {
      // A `done` that throws must not stop the others' (nor the pool thread).
    }
  }
}

}  // namespace modelgw::idempotency
