// Spec 7.4: which upstream failures are retried, and how long to wait before
// the next attempt: min(base * 2^attempt, max_wait) plus 0-25 % jitter, or
// the upstream's Retry-After when it sent one.
#pragma once

#include "config/config.h"
#include "errors/api_error.h"

#include <chrono>

namespace modelgw::chat {

// Retried: 429, 500, 502, 503, 504 (and connection failures, which the host
// reports as 502/504), when the failure says the same call may succeed later.
bool is_retryable(const errors::ApiError& error);

class RetryPolicy {
 public:
  explicit RetryPolicy(const config::RetryConfig& config) : config_(config) {}

  int max_attempts() const { return config_.max_attempts; }
  std::chrono::milliseconds budget() const { return std::chrono::milliseconds(config_.budget_ms); }

  // The wait after failed attempt number `attempt` (0 for the first try).
  // `jitter` in [0, 1) picks the point in the 0-25 % jitter range.
  std::chrono::milliseconds backoff(int attempt, double jitter) const;
  // backoff(), or the upstream's Retry-After when the error carries one.
  std::chrono::milliseconds wait_after(const errors::ApiError& error, int attempt, double jitter) const;

 private:
  config::RetryConfig config_;
};

// A uniform draw from [0, 1), from a per-thread generator.
double jitter_draw();

}  // namespace modelgw::chat
