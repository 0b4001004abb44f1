// Spec 7.4: which failures are retried and how long to wait between attempts.
#include "chat/retry_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

namespace {

using modelgw::chat::is_retryable;
using modelgw::chat::jitter_draw;
using modelgw::chat::RetryPolicy;
using modelgw::config::RetryConfig;
using modelgw::errors::ApiError;
using std::chrono::milliseconds;

ApiError failure(int status, bool retryable, int retry_after_s = -1) {
  ApiError e;
  e.status = status;
  e.code = "upstream_error";
  e.retryable = retryable;
  e.retry_after_s = retry_after_s;
  return e;
}

RetryConfig config(int base_ms, int max_wait_ms, int max_attempts = 5, int budget_ms = 30000) {
  RetryConfig c;
  c.base_ms = base_ms;
  c.max_wait_ms = max_wait_ms;
  c.max_attempts = max_attempts;
  c.budget_ms = budget_ms;
  return c;
}

TEST(RetryPolicy, RetryableStatuses) {
  for (int status : {429, 500, 502, 503, 504}) {
    EXPECT_TRUE(is_retryable(failure(status, true))) << status;
    EXPECT_FALSE(is_retryable(failure(status, false))) << status;
  }
}

TEST(RetryPolicy, OtherStatusesAreNeverRetried) {
  for (int status : {200, 400, 401, 403, 404, 408, 409, 413, 422, 425, 499, 501, 505, 507, 520, 529, 599}) {
    EXPECT_FALSE(is_retryable(failure(status, true))) << status;
    EXPECT_FALSE(is_retryable(failure(status, false))) << status;
  }
}

TEST(RetryPolicy, ExposesItsConfiguration) {
  const RetryPolicy p(config(100, 1000, 3, 2500));
  EXPECT_EQ(p.max_attempts(), 3);
  EXPECT_EQ(p.budget(), milliseconds(2500));
}

TEST(RetryPolicy, BackoffDoublesFromTheBase) {
  const RetryPolicy p(config(1000, 60000));
  EXPECT_EQ(p.backoff(0, 0.0), milliseconds(1000));
  EXPECT_EQ(p.backoff(1, 0.0), milliseconds(2000));
  EXPECT_EQ(p.backoff(2, 0.0), milliseconds(4000));
  EXPECT_EQ(p.backoff(3, 0.0), milliseconds(8000));
  EXPECT_EQ(p.backoff(4, 0.0), milliseconds(16000));
  EXPECT_EQ(p.backoff(5, 0.0), milliseconds(32000));
}

TEST(RetryPolicy, BackoffIsCappedByMaxWait) {
  const RetryPolicy p(config(1000, 5000));
  EXPECT_EQ(p.backoff(2, 0.0), milliseconds(4000));
  EXPECT_EQ(p.backoff(3, 0.0), milliseconds(5000));
  EXPECT_EQ(p.backoff(10, 0.0), milliseconds(5000));
  // Large attempt numbers neither overflow nor go negative.
  EXPECT_EQ(p.backoff(63, 0.0), milliseconds(5000));
  EXPECT_EQ(p.backoff(1000, 0.0), milliseconds(5000));
  EXPECT_EQ(p.backoff(-1, 0.0), milliseconds(1000));
  // A base above the cap is capped from the first wait.
  EXPECT_EQ(RetryPolicy(config(9000, 5000)).backoff(0, 0.0), milliseconds(5000));
}

TEST(RetryPolicy, JitterAddsUpToAQuarter) {
  const RetryPolicy p(config(1000, 60000));
  EXPECT_EQ(p.backoff(0, 0.5), milliseconds(1125));
  EXPECT_EQ(p.backoff(2, 0.5), milliseconds(4500));
  EXPECT_EQ(p.backoff(2, 0.75), milliseconds(4750));
  // Jitter applies on top of the cap too.
  const RetryPolicy capped(config(1000, 5000));
  EXPECT_EQ(capped.backoff(9, 0.2), milliseconds(5250));
  // Out-of-range draws are clamped to the 0-25 % range.
  EXPECT_EQ(p.backoff(0, -3.0), milliseconds(1000));
  EXPECT_EQ(p.backoff(0, 7.0), milliseconds(1250));
}

TEST(RetryPolicy, BackoffStaysWithinItsRangeForAnyDraw) {
  const RetryPolicy p(config(200, 3000));
  for (int attempt = 0; attempt < 6; ++attempt) {
    const long long nominal = std::min(200LL << attempt, 3000LL);
    for (int i = 0; i < 100; ++i) {
      const auto wait = p.backoff(attempt, jitter_draw()).count();
      EXPECT_GE(wait, nominal) << attempt;
      EXPECT_LE(wait, nominal + nominal / 4) << attempt;
    }
  }
}

TEST(RetryPolicy, WaitAfterHonoursRetryAfter) {
  const RetryPolicy p(config(1000, 60000));
  EXPECT_EQ(p.wait_after(failure(429, true, 7), 0, 0.9), milliseconds(7000));
  EXPECT_EQ(p.wait_after(failure(503, true, 0), 3, 0.9), milliseconds(0));
  // Retry-After is the upstream's word: neither capped nor jittered.
  EXPECT_EQ(RetryPolicy(config(1000, 2000)).wait_after(failure(429, true, 120), 0, 0.5),
            milliseconds(120000));
}

TEST(RetryPolicy, WaitAfterWithoutRetryAfterIsTheBackoff) {
  const RetryPolicy p(config(1000, 60000));
  EXPECT_EQ(p.wait_after(failure(500, true), 0, 0.0), p.backoff(0, 0.0));
  EXPECT_EQ(p.wait_after(failure(502, true), 2, 0.5), milliseconds(4500));
  EXPECT_EQ(p.wait_after(failure(429, true, -1), 1, 0.0), milliseconds(2000));
}

TEST(RetryPolicy, JitterDrawIsInTheHalfOpenUnitInterval) {
  double lo = 1.0;
  double hi = 0.0;
  for (int i = 0; i < 10000; ++i) {
    const double d = jitter_draw();
    ASSERT_GE(d, 0.0);
    ASSERT_LT(d, 1.0);
    lo = std::min(lo, d);
    hi = std::max(hi, d);
  }
  // Not a constant: 10000 uniform draws spread over most of the interval.
  EXPECT_LT(lo, 0.05);
  EXPECT_GT(hi, 0.95);
}

}  // namespace
