// The idempotency step of POST /v1/chat/completions (spec 8), one call from
// the chat path: the first request with a tenant's key claims it in storage
// and makes the call; its answer, when complete and successful, is kept with
// the key for idempotency.ttl_ms and replayed to every retry, which calls no
// provider, writes no usage record and is charged nothing. Duplicates that
// arrive while it runs follow it (flight.h) instead of calling again; a
// different request with the same key is refused (422).
//
// State: keys live in storage (shared by every process on it, so a retry
// that lands on another gateway is answered the same); the flights of this
// process live here. Claims, completions and releases go to storage through
// one ClaimBatcher (claim_batcher.h): the requests of all loops share its
// group-committed batches, one storage transaction each. A crash leaves its claims PENDING until
// idempotency.in_flight_ms passes; then the key is free.
#pragma once

#include "config/config.h"
#include "http/server_call.h"
#include "idempotency/claim_batcher.h"
#include "idempotency/flight.h"
#include "net/blocking_pool.h"
#include "plugins/storage.h"
#include "util/batch_purge.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace modelgw::idempotency {

class KeyKeeper {
 public:
  KeyKeeper(plugins::Storage& storage, net::BlockingPool& blocking, config::IdempotencyConfig options);
  // The batcher's finishes touch the flights: written before they go.
  ~KeyKeeper() {
    stop();
    batcher_.flush();
  }
  KeyKeeper(const KeyKeeper&) = delete;
  KeyKeeper& operator=(const KeyKeeper&) = delete;

  // The thread that purges expired keys every purge_interval_ms.
  void start();
  void stop() { purge_.stop(); }  // idempotent

  struct Step {
    // Set when this request makes the call: its answer is captured (the
    // call's tap) and goes on when the client leaves; pass it to finish().
    std::shared_ptr<Flight> flight;
    // Answered with the first request's answer (replayed, or followed live):
    // no provider call, no usage record, no charge.
    bool answered = false;
    // Or refused: answer this (422 reused key, 409 in progress, 503...).
    std::optional<errors::ApiError> refusal;
    // Or the client left while waiting for the first: nothing to answer.
    bool client_left = false;
  };
  // Runs the step on the caller's loop; storage calls go to the blocking
  // pool, in the batcher's batches.
  net::Task<Step> begin(http::ServerCall& call, std::int64_t tenant_id, std::string key, std::string digest);
  // After the owner answered: keeps its answer when `keep` (a complete 200),
  // else frees the key; then the flight's followers are released. Returns
  // at once: the write is one of the batcher's lingering finishes.
  void finish(std::shared_ptr<Flight> flight, bool keep);

 private:
  enum class Followed { answered, refused, free, timed_out, gone };
  using Clock = std::chrono::steady_clock;

  net::Task<Step> claim(http::ServerCall& call, std::shared_ptr<Flight> flight, Clock::time_point deadline);
  net::Task<Followed> follow(http::ServerCall& call, Flight& flight, Clock::time_point deadline,
                             std::optional<errors::ApiError>& refusal);
  void forget(const Flight& flight);  // drops the map's entry when it is `flight`
  static std::int64_t now_unix_ms();

  plugins::Storage& storage_;
  const config::IdempotencyConfig options_;
  ClaimBatcher::StorageStore store_;
  ClaimBatcher batcher_;

  std::mutex flights_mutex_;
  std::map<std::pair<std::int64_t, std::string>, std::shared_ptr<Flight>> flights_;

  util::BatchPurge purge_;
};

}  // namespace modelgw::idempotency
