// Group commit of idempotency keys (issue 27): the claims of requests on any
// event loop, and their completions and releases, are written to storage in
// batches, one storage transaction per batch instead of one per request.
//
// A claim never waits for company: a request hands its row over and waits;
// when no batch is running one starts at once on the blocking pool (a lone
// request waits for nothing but its own write), and while one runs, every
// row handed over meanwhile queues and goes into the next. Each request
// resumes on its own executor with its own row's outcome.
//
// A finish (the answer kept, or the key freed) is off its request's path:
// the client has its answer, and its connection goes on. So finishes linger
// up to kFinishLinger for others, or until kFinishBatchRows are queued,
// and go in one batch (measured at 10,000 keyed requests a second: about
// 40 rows a finish batch, 9 a claim batch). Its `done` runs on the
// blocking pool when the batch is written. Until then the
// flight holds the answer: a retry in this process follows it, one in
// another process finds the claim PENDING and polls, as it does while the
// upstream call runs; a crash in the linger leaves the claim PENDING until
// in_flight_ms passes, as a crash during the call does.
//
// At most one batch runs at a time (due finishes first, then claims: a key
// a request freed is free for a claim of the same round). A batch that
// fails as a whole fails each of its rows with the batch's error, as one
// call failing fails its request.
//
// State: the queues, behind a mutex, and whether a batch runs (or lingers:
// the thread that runs batches waits on `wake_` while only young finishes
// are queued; a claim wakes it). THREADING: claim() and finish() from any
// thread (event loops); the batches and `done` run on the blocking pool.
// Destroy it only after the blocking pool stopped (or with no request
// waiting); the destructor writes what is queued and waits for it.
#pragma once

#include "net/asio.h"
#include "net/blocking_pool.h"
#include "plugins/storage.h"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace modelgw::idempotency {

class ClaimBatcher {
 public:
  // Where the batches go: the storage plugin in the gateway, a fake in tests.
  class Store {
   public:
    virtual ~Store() = default;
    // Outcome i answers row i; throws when the batch failed as a whole.
    virtual std::vector<plugins::IdempotencyClaimOutcome> claim_batch(
        const std::vector<plugins::IdempotencyRow>& claims, std::int64_t now_unix_ms) = 0;
    virtual std::vector<plugins::IdempotencyFinishOutcome> finish_batch(
        const std::vector<plugins::IdempotencyRow>& rows) = 0;
  };
  // plugins::Storage as a Store (its batch calls fall back to one call per
  // row for a plugin without the ABI 1.12 hooks).
  class StorageStore final : public Store {
   public:
    explicit StorageStore(plugins::Storage& storage) : storage_(storage) {}
    std::vector<plugins::IdempotencyClaimOutcome> claim_batch(
        const std::vector<plugins::IdempotencyRow>& claims, std::int64_t now_unix_ms) override {
      return storage_.claim_idempotency_batch(claims, now_unix_ms);
    }
    std::vector<plugins::IdempotencyFinishOutcome> finish_batch(
        const std::vector<plugins::IdempotencyRow>& rows) override {
      return storage_.finish_idempotency_batch(rows);
    }

   private:
    plugins::Storage& storage_;
  };

  using Clock = std::chrono::steady_clock;
  // At most this many rows go into one batch; the rest wait for the next.
  static constexpr std::size_t kMaxBatchRows = 256;
  // Finishes are written when this many are queued, or when the oldest has
  // waited this long, or with the next claims after that.
  static constexpr std::size_t kFinishBatchRows = 64;
  static constexpr std::chrono::milliseconds kFinishLinger{2};

  ClaimBatcher(Store& store, net::BlockingPool& blocking) : store_(store), blocking_(blocking) {}
  ~ClaimBatcher();
  ClaimBatcher(const ClaimBatcher&) = delete;
  ClaimBatcher& operator=(const ClaimBatcher&) = delete;

  // Claims row.key for row.owner (see Storage::claim_idempotency_batch).
  net::Task<plugins::IdempotencyClaimOutcome> claim(plugins::IdempotencyRow row);
  // Completes (state MGW_IDEMPOTENCY_DONE) or releases (MGW_IDEMPOTENCY_FREE)
  // the owner's claim, in a later batch; `done` gets the row's outcome on
  // the blocking pool. It must not throw.
  using FinishDone = std::function<void(plugins::IdempotencyFinishOutcome)>;
  void finish(plugins::IdempotencyRow row, FinishDone done);

  // At shutdown: writes the queued finishes without their linger (and any
  // later one at once) and waits until no batch runs.
  void flush();

  // How many batches were written so far (each one Store call).
  std::uint64_t batches() const;

 private:
  struct ClaimWaiter {
    virtual ~ClaimWaiter() = default;
    virtual void complete(plugins::IdempotencyClaimOutcome outcome) = 0;  // posts to the waiter's executor
  };
  struct ClaimEntry {
    plugins::IdempotencyRow row;
    std::unique_ptr<ClaimWaiter> waiter;
  };
  struct FinishEntry {
    plugins::IdempotencyRow row;
    FinishDone done;
    Clock::time_point queued;
  };

  // Under the lock: starts the batch thread, or wakes it when it lingers.
  void start_or_wake();
  // Under the lock: the queued finishes should be written now.
  bool finishes_due(Clock::time_point now) const;
  void run();  // on the blocking pool: batches until the queues are empty
  void run_claims(std::vector<ClaimEntry>& batch);
  void run_finishes(std::vector<FinishEntry>& batch);

  Store& store_;
  net::BlockingPool& blocking_;

  mutable std::mutex mutex_;
  std::condition_variable idle_;
  std::condition_variable wake_;
  std::deque<ClaimEntry> claims_;
  std::deque<FinishEntry> finishes_;
  bool running_ = false;
  bool stopping_ = false;  // flush(): finishes are due at once
  std::uint64_t batches_ = 0;
};

}  // namespace modelgw::idempotency
