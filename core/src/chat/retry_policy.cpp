#include "chat/retry_policy.h"

#include <algorithm>
#include <random>

namespace modelgw::chat {

bool is_retryable(const errors::ApiError& error) {
  if (!error.retryable) return false;
  return error.status == 429 || error.status == 500 || error.status == 502 || error.status == 503 ||
         error.status == 504;
}

std::chrono::milliseconds RetryPolicy::backoff(int attempt, double jitter) const {
  const double base = config_.base_ms;
  const double cap = config_.max_wait_ms;
  const double wait = std::min(base * static_cast<double>(1ULL << std::clamp(attempt, 0, 30)), cap);
  return std::chrono::milliseconds(static_cast<long long>(wait + wait * 0.25 * std::clamp(jitter, 0.0, 1.0)));
}

std::chrono::milliseconds RetryPolicy::wait_after(const errors::ApiError& error, int attempt,
                                                  double jitter) const {
  if (error.retry_after_s >= 0) return std::chrono::seconds(error.retry_after_s);
  return backoff(attempt, jitter);
}

double jitter_draw() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

}  // namespace modelgw::chat
