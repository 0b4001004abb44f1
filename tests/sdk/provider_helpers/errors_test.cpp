// modelgw/provider/errors.hpp: the default status table, a vendor's rows over
// it, and the fixed texts.
#include <modelgw/provider/errors.hpp>
#include <modelgw/testing/fake_host.hpp>

#include <gtest/gtest.h>

#include <array>

namespace {

using namespace mgw::provider;

void expect_class(const ErrorClass& c, int32_t status, std::string_view code, bool retryable) {
  EXPECT_EQ(c.http_status, status);
  EXPECT_EQ(c.code, code);
  EXPECT_EQ(c.retryable, retryable);
}

TEST(StatusTable, TheDefaultRows) {
  constexpr StatusTable table;
  expect_class(table.classify(400), 400, kInvalidParameter, false);
  expect_class(table.classify(422), 400, kInvalidParameter, false);
  expect_class(table.classify(401), 502, kProviderFailed, false);
  expect_class(table.classify(403), 502, kProviderFailed, false);
  expect_class(table.classify(404), 502, kProviderFailed, false);
  expect_class(table.classify(408), 504, kProviderTimeout, true);
  expect_class(table.classify(429), 429, kRateLimitExceeded, true);
  for (int32_t s : {500, 502, 503, 504, 529, 599}) {
    expect_class(table.classify(s), 502, kProviderFailed, true);
  }
  for (int32_t s : {0, 100, 200, 302, 402, 409, 413, 600, -1}) {
    expect_class(table.classify(s), 502, kProviderFailed, false);
  }
}

TEST(StatusTable, AVendorsRowsReplaceTheDefaultsRowByRow) {
  static constexpr std::array<StatusRow, 3> kRows = {{
      {504, 504, {504, kProviderTimeout, true}},
      {402, 402, {502, kProviderFailed, false}},
      {520, 529, {503, kProviderFailed, true}},
  }};
  constexpr StatusTable table(kRows);
  static_assert(table.classify(504).http_status == 504, "the table is usable at compile time");
  expect_class(table.classify(504), 504, kProviderTimeout, true);
  expect_class(table.classify(402), 502, kProviderFailed, false);
  expect_class(table.classify(525), 503, kProviderFailed, true);
  // Rows the vendor did not override keep their defaults.
  expect_class(table.classify(503), 502, kProviderFailed, true);
  expect_class(table.classify(429), 429, kRateLimitExceeded, true);
  expect_class(StatusTable(nullptr, 5).classify(504), 502, kProviderFailed, true);
}

TEST(Mapped, RetryAfterGoesWithARetryableClassOnly) {
  const MappedError retry = mapped({429, kRateLimitExceeded, true}, "slow down", 2000);
  EXPECT_EQ(retry.retry_after_ms, 2000);
  EXPECT_TRUE(retry.retryable);
  const MappedError no = mapped({502, kProviderFailed, false}, "no", 2000);
  EXPECT_EQ(no.retry_after_ms, -1);
  EXPECT_EQ(no.message, "no");
  const MappedError failed = provider_failed("broken", true);
  EXPECT_EQ(failed.http_status, 502);
  EXPECT_EQ(failed.code, kProviderFailed);
  EXPECT_EQ(failed.retry_after_ms, -1);
}

TEST(Mapped, EmitErrorFillsTheSink) {
  mgw::testing::ResponseRecorder rec;
  MappedError e = mapped({422, kContextLengthExceeded, false}, "too long");
  e.param = "messages";
  emit_error(&rec.sink, e);
  ASSERT_TRUE(rec.error.has_value());
  EXPECT_EQ(rec.error->http_status, 422);
  EXPECT_EQ(rec.error->code, "context_length_exceeded");
  EXPECT_EQ(rec.error->message, "too long");
  EXPECT_EQ(rec.error->param, "messages");
  EXPECT_FALSE(rec.error->retryable);
  emit_error(nullptr, e);  // no sink: nothing to do, no crash
}

TEST(Texts, SayWhatHappenedWithoutEchoingTheBody) {
  EXPECT_EQ(rate_limited_message(1), "the upstream provider is rate limiting; retry after 1 second");
  EXPECT_EQ(rate_limited_message(1001), "the upstream provider is rate limiting; retry after 2 seconds");
  EXPECT_EQ(rate_limited_message(-1), "the upstream provider is rate limiting; retry later");
  EXPECT_EQ(unknown_model_message("gpt-x"), "the upstream provider does not know model 'gpt-x'");
  const mgw_header html{mgw::str("Content-Type"), mgw::str("text/html; charset=utf-8")};
  EXPECT_EQ(body_shape(true, true, &html, 1), " with an empty body");
  EXPECT_EQ(body_shape(false, true, &html, 1), " with a non-JSON body (text/html)");
  EXPECT_EQ(body_shape(false, false, &html, 1), "");
  EXPECT_TRUE(is_blank(" \r\n\t"));
  EXPECT_FALSE(is_blank(" x "));
}

}  // namespace
