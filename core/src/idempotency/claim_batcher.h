// Group commit of idempotency keys (issue 27): the claims of requests on any
// event loop, and their completions and releases, are written to storage in
// batches, one storage transaction per batch instead of one per request.
//
// No timer: a request hands its row over and waits; when no batch is
// running one starts at once on the blocking pool (a lone request waits for
// nothing but its own write), and while one runs, every row handed over
// meanwhile queues and goes into the next. At most one batch runs at a time
// (finishes first, then claims: a key a request freed is free for a claim
// of the same batch). Each request resumes on its own executor with its own
// row's outcome; a batch that fails as a whole fails each of its rows with
// the batch's error, as one call failing fails its request.
//
// State: the queues, behind a mutex, and whether a batch runs. THREADING:
// claim() and finish() from any thread (event loops); the batches run on
// the blocking pool. Destroy it only after the blocking pool stopped (or
// with no request waiting); the destructor waits for a running batch.
#pragma once

#include "net/asio.h"
#include "net/blocking_pool.h"
#include "plugins/storage.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
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

  // At most this many rows go into one batch; the rest wait for the next.
  static constexpr std::size_t kMaxBatchRows = 256;

  ClaimBatcher(Store& store, net::BlockingPool& blocking) : store_(store), blocking_(blocking) {}
  ~ClaimBatcher();
  ClaimBatcher(const ClaimBatcher&) = delete;
  ClaimBatcher& operator=(const ClaimBatcher&) = delete;

  // Claims row.key for row.owner (see Storage::claim_idempotency_batch).
  net::Task<plugins::IdempotencyClaimOutcome> claim(plugins::IdempotencyRow row);
  // Completes (state MGW_IDEMPOTENCY_DONE) or releases (MGW_IDEMPOTENCY_FREE)
  // the owner's claim.
  net::Task<plugins::IdempotencyFinishOutcome> finish(plugins::IdempotencyRow row);

  // How many batches were written so far (each one Store call).
  std::uint64_t batches() const;

 private:
  template <typename Outcome>
  struct Waiter {
    virtual ~Waiter() = default;
    virtual void complete(Outcome outcome) = 0;  // posts to the waiter's executor
  };
  template <typename Outcome>
  struct Entry {
    plugins::IdempotencyRow row;
    std::unique_ptr<Waiter<Outcome>> waiter;
  };
  using ClaimEntry = Entry<plugins::IdempotencyClaimOutcome>;
  using FinishEntry = Entry<plugins::IdempotencyFinishOutcome>;

  template <typename Outcome>
  net::Task<Outcome> wait_for(std::deque<Entry<Outcome>>& queue, plugins::IdempotencyRow row);
  void run();  // on the blocking pool: batches until the queues are empty
  void run_claims(std::vector<ClaimEntry>& batch);
  void run_finishes(std::vector<FinishEntry>& batch);

  Store& store_;
  net::BlockingPool& blocking_;

  mutable std::mutex mutex_;
  std::condition_variable idle_;
  std::deque<ClaimEntry> claims_;
  std::deque<FinishEntry> finishes_;
  bool running_ = false;
  std::uint64_t batches_ = 0;
};

}  // namespace modelgw::idempotency
