// The measured phases. Each runs on one backend with one or both of its
// instances at once and returns what it saw, with the store calls it caused.
#pragma once

#include "backend.h"
#include "store_calls.h"

#include <cstdint>
#include <string>

namespace storage_scale {

struct Phase {
  int instances = 0;
  std::int64_t requests = 0;  // requests made, or usage records written
  std::int64_t refused = 0;   // requests refused or failed...
  std::string first_refusal;  // ...and what the first was told
  std::int64_t unstored = 0;  // usage records not stored (left in the journal)
  double seconds = 0;
  double per_second = 0;                      // requests (records) per second of the phase
  double p50_us = 0, p99_us = 0;              // the request-path step
  double after_p50_us = 0, after_p99_us = 0;  // the idempotency keep, after the answer
  CallCounts calls;                           // store calls during the phase
  std::int64_t errors() const { return refused + unstored; }
  double calls_per_1000() const {
    return requests > 0 ? 1000.0 * static_cast<double>(calls.total()) / static_cast<double>(requests) : 0;
  }
};

// `records` usage records per instance through UsageWriter (the gateway's
// batches), one producer per instance; timed until every writer stored all.
Phase write_usage(Backend& b, int instances, std::int64_t records, const std::string& tag);

// SpendControl::admit + settle (the chat path's spend step) for the tenant
// with budgets and rate limits (`held`), or for one with nothing to hold.
Phase spend_step(Backend& b, int instances, bool held, int threads, int per_thread);

// The idempotency step with a new key per request: KeyKeeper::begin (the
// claim, before the upstream call), the answer, then finish (keeping the
// answer, after the client has it). Keys are `tag`-<instance>-<thread>-<i>.
Phase new_keys(Backend& b, int instances, int threads, int per_thread, const std::string& tag);

// Both instances replay the keys the other kept in new_keys(b, 2, ..., tag):
// a retry that lands on the other gateway (one store read).
Phase replays(Backend& b, int threads, int per_thread, const std::string& tag);

// A served request's storage work: the spend step, then its usage record
// (with the charges it settled) to the instance's writer. Timed until every
// record is stored.
Phase served(Backend& b, int instances, int threads, int per_thread, const std::string& tag);

}  // namespace storage_scale
