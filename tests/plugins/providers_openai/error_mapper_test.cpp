// on_parse_response with a non-2xx: one test per row of the README's table.
#include "plugin_harness.h"

#include <gtest/gtest.h>

#include <cctype>
#include <ctime>

namespace openai_test {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;
using mgw::testing::RecordedError;

RecordedError error_for(int status, std::string_view body, const Headers& headers = {},
                        std::string_view config = R"({"api_key":"sk-test-Abc123Def456Ghi789"})") {
  Provider p(config);
  Recorder out;
  EXPECT_EQ(p.parse(CallContext{}, status, body, out, headers), MGW_OK);
  EXPECT_EQ(out.events, std::vector<std::string>{"error"}) << "status " << status;
  return out.rec.error.value_or(RecordedError{});
}

TEST(ErrorMap, ContextLengthCodeIs422WithTheVendorsMessage) {
  const auto e = error_for(400, fixture("error_400_context_length.json"));
  EXPECT_EQ(e.http_status, 422);
  EXPECT_EQ(e.code, "context_length_exceeded");
  EXPECT_EQ(e.message,
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 "
            "tokens. "
            "Please reduce the length of the messages.");
  EXPECT_EQ(e.param, "messages");
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, ContextLengthSaidOnlyInWordsIs422WithParamMessages) {
  const auto e = error_for(400, fixture("error_400_context_length_vllm.json"));
  EXPECT_EQ(e.http_status, 422);
  EXPECT_EQ(e.code, "context_length_exceeded");
  EXPECT_EQ(e.message.rfind("This model's maximum context length is 8192 tokens.", 0), 0u) << e.message;
  EXPECT_EQ(e.param, "messages");  // the vendor's param was null
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, Other400IsInvalidParameterWithTheVendorsParam) {
  const auto e = error_for(400, fixture("error_400_invalid_value.json"));
  EXPECT_EQ(e.http_status, 400);
  EXPECT_EQ(e.code, "invalid_parameter");
  EXPECT_EQ(e.message,
            "upstream rejected the request: Invalid 'temperature': decimal above maximum value. Expected a "
            "value <= "
            "2, but got 3.5 instead.");
  EXPECT_EQ(e.param, "temperature");
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, Upstream422IsInvalidParameter) {
  const auto e = error_for(422, fixture("error_422_openai_style.json"));
  EXPECT_EQ(e.http_status, 400);
  EXPECT_EQ(e.code, "invalid_parameter");
  EXPECT_EQ(e.message,
            "upstream rejected the request: 'tool_choice' is only allowed when 'tools' are specified.");
  EXPECT_EQ(e.param, "tool_choice");
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, Upstream422WithoutAnOpenAIErrorSaysSoWithoutEchoing) {
  const auto e = error_for(422, fixture("error_422_validation.json"));
  EXPECT_EQ(e.http_status, 400);
  EXPECT_EQ(e.code, "invalid_parameter");
  EXPECT_EQ(e.message, "upstream rejected the request (HTTP 422)");
  EXPECT_EQ(e.param, "");
}

TEST(ErrorMap, UnsupportedParameterIs422UnsupportedParameter) {
  const auto e = error_for(400, fixture("error_400_unsupported_value.json"));
  EXPECT_EQ(e.http_status, 422);
  EXPECT_EQ(e.code, "unsupported_parameter");
  EXPECT_EQ(e.message.rfind("upstream rejected the request: Unsupported value: 'temperature'", 0), 0u)
      << e.message;
  EXPECT_EQ(e.param, "temperature");
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, Unauthorized401NeverPassesOnTheVendorsText) {
  const auto e = error_for(401, fixture("error_401_invalid_api_key.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_EQ(
      e.message,
      "the upstream provider rejected the gateway's credentials; the operator must check the provider's "
      "api_key");
  EXPECT_EQ(e.message.find("Incorrect"), std::string::npos);
  EXPECT_EQ(e.message.find("Xk3q"), std::string::npos);  // the key fragment OpenAI echoes
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, Forbidden403IsTheSameCredentialsError) {
  const auto e = error_for(403, fixture("error_403_region.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_EQ(e.message.find("Country"), std::string::npos);
  EXPECT_NE(e.message.find("credentials"), std::string::npos);
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, NotFound404NamesTheUpstreamModel) {
  const auto e = error_for(404, fixture("error_404_model.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_EQ(e.message, "the upstream provider does not know model 'test-model'");
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, Timeout408IsARetryableProviderTimeout) {
  const auto e = error_for(408, "");
  EXPECT_EQ(e.http_status, 504);
  EXPECT_EQ(e.code, "provider_timeout");
  EXPECT_TRUE(e.retryable);
}

TEST(ErrorMap, OutOfQuota429IsNotARateLimit) {
  const auto e = error_for(429, fixture("error_429_quota.json"), {{"Retry-After", "20"}});
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_EQ(e.message, "the upstream provider's account is out of quota");
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, RateLimit429CarriesRetryAfterSeconds) {
  const auto e = error_for(429, fixture("error_429_rate_limit.json"), {{"retry-after", "20"}});
  EXPECT_EQ(e.http_status, 429);
  EXPECT_EQ(e.code, "rate_limit_exceeded");
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.retry_after_ms, 20000);
  EXPECT_EQ(e.message, "the upstream provider is rate limiting; retry after 20 seconds");
}

TEST(ErrorMap, RateLimit429PrefersRetryAfterMs) {
  const auto e = error_for(429, fixture("error_429_rate_limit.json"),
                           {{"Retry-After", "2"}, {"Retry-After-Ms", "1466"}});
  EXPECT_EQ(e.retry_after_ms, 1466);
  EXPECT_EQ(e.message, "the upstream provider is rate limiting; retry after 2 seconds");
}

TEST(ErrorMap, RateLimit429WithoutAHintSaysRetryLater) {
  const auto e = error_for(429, fixture("error_429_rate_limit.json"));
  EXPECT_EQ(e.http_status, 429);
  EXPECT_EQ(e.retry_after_ms, -1);
  EXPECT_EQ(e.message, "the upstream provider is rate limiting; retry later");
}

std::string http_date(std::time_t t, const char* format) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);  // C locale: English names
  return buf;
}

TEST(ErrorMap, RateLimit429ReadsEveryHttpDateForm) {
  const std::time_t in_two_minutes = std::time(nullptr) + 120;
  for (const char* format :
       {"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"}) {
    const std::string date = http_date(in_two_minutes, format);
    const auto e = error_for(429, "", {{"Retry-After", date}});
    EXPECT_GT(e.retry_after_ms, 110000) << date;
    EXPECT_LE(e.retry_after_ms, 120000) << date;
  }
}

TEST(ErrorMap, RateLimit429WithAPastDateMeansNow) {
  const auto e = error_for(429, "", {{"Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT"}});
  EXPECT_EQ(e.retry_after_ms, 0);
}

TEST(ErrorMap, RateLimit429IgnoresAGarbledRetryAfter) {
  const auto e = error_for(429, "", {{"Retry-After", "soon-ish"}});
  EXPECT_EQ(e.retry_after_ms, -1);
}

TEST(ErrorMap, ServerError5xxIsRetryableWithTheVendorsMessage) {
  const auto e = error_for(500, fixture("error_500_server.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.message,
            "upstream provider returned HTTP 500: The server had an error while processing your request. "
            "Sorry about "
            "that!");
}

TEST(ErrorMap, ServerError5xxPassesOnRetryAfter) {
  const auto e = error_for(503, fixture("error_500_server.json"), {{"Retry-After", "3"}});
  EXPECT_EQ(e.retry_after_ms, 3000);
}

TEST(ErrorMap, HtmlBodyIsNamedByItsTypeAndNeverEchoed) {
  const auto e =
      error_for(502, fixture("error_502_cloudflare.html"), {{"Content-Type", "text/html; charset=UTF-8"}});
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.message, "upstream provider returned HTTP 502 with a non-JSON body (text/html)");
}

TEST(ErrorMap, NonJsonBodyWithoutContentTypeSaysSo) {
  const auto e = error_for(504, "upstream request timeout");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 504 with a non-JSON body (no content type)");
}

TEST(ErrorMap, EmptyBodySaysSo) {
  const auto e = error_for(503, "");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 503 with an empty body");
  EXPECT_TRUE(e.retryable);
}

TEST(ErrorMap, AnyOtherStatusIsANonRetryableProviderFailure) {
  for (int status : {302, 409, 413}) {
    const auto e = error_for(status, fixture("error_500_server.json"));
    EXPECT_EQ(e.http_status, 502) << status;
    EXPECT_EQ(e.code, "provider_failed");
    EXPECT_FALSE(e.retryable) << status;
    EXPECT_EQ(e.message.rfind("upstream provider returned HTTP " + std::to_string(status) + ": ", 0), 0u);
  }
}

TEST(ErrorMap, LongVendorMessagesAreMaskedAndCutTo300Bytes) {
  const auto e = error_for(503, fixture("error_503_long_leaky.json"));
  const std::string prefix = "upstream provider returned HTTP 503: ";
  ASSERT_EQ(e.message.rfind(prefix, 0), 0u);
  const std::string vendor = e.message.substr(prefix.size());
  EXPECT_LE(vendor.size(), 300u);
  EXPECT_GT(vendor.size(), 250u);
  EXPECT_NE(vendor.find("auth=Bearer ***"), std::string::npos) << vendor;
  EXPECT_NE(vendor.find("upstream_token=***"), std::string::npos) << vendor;
  EXPECT_EQ(vendor.find("Zr8Kq2"), std::string::npos) << vendor;
  EXPECT_EQ(vendor.find("9f8e7d"), std::string::npos) << vendor;
}

TEST(ErrorMap, SkTokensInVendorMessagesAreMasked) {
  const auto e = error_for(400, fixture("error_400_echoes_key.json"));
  EXPECT_EQ(e.message,
            "upstream rejected the request: Invalid 'messages[1].content': string sk-*** looks like a "
            "credential and "
            "was rejected.");
}

TEST(ErrorMap, TheConfiguredKeyIsMaskedWhateverItsShape) {
  const auto e = error_for(500, R"({"error":{"message":"bad key tok_live_1234 for project"}})", {},
                           R"({"api_key":"tok_live_1234"})");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 500: bad key *** for project");
}

TEST(ErrorMap, CutsOnAUtf8Boundary) {
  std::string message;
  for (int i = 0; i < 200; ++i) {
    message += "é";  // 2 bytes each: 300 falls inside none
  }
  message = "x" + message;  // ...until shifted by one
  const auto e = error_for(500, R"({"error":{"message":")" + message + R"("}})");
  const std::string vendor = e.message.substr(std::string("upstream provider returned HTTP 500: ").size());
  EXPECT_EQ(vendor.size(), 299u);
  EXPECT_TRUE(valid_utf8(e.message));
}

// Drifts fixed when the provider helpers moved into the SDK
// (modelgw/provider/): one copy for every provider. Each test names what this
// provider did differently before.

TEST(ErrorMap, RateLimit429ReadsAnHttpDateInAnyCase) {
  // Drift: "GMT" was read in capitals only (the day and month names in any
  // case); RFC 9110 asks a recipient to be robust, and one parser now serves all.
  std::string date = http_date(std::time(nullptr) + 120, "%a, %d %b %Y %H:%M:%S gmt");
  for (char& c : date) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  const auto e = error_for(429, "", {{"Retry-After", date}});
  EXPECT_GT(e.retry_after_ms, 110000) << date;
  EXPECT_LE(e.retry_after_ms, 120000) << date;
}

TEST(ErrorMap, ABearerJwtIsMaskedWholeNotOnlyItsFirstSegment) {
  // Drift: the token after "Bearer " ended at the first '.', so a JWT's
  // payload and signature passed on; the SDK reads RFC 6750's b64token.
  const auto e = error_for(
      500,
      R"({"error":{"message":"sent Authorization: Bearer eyJhbGciOi.eyJzdWIiOiIx.c2lnbmF0dXJl, refused"}})");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 500: sent Authorization: Bearer ***, refused");
}

TEST(ErrorMap, EveryVendorsKeyPrefixIsMasked) {
  // Drift: this provider's table lacked Anthropic's sk-ant- (shown as sk-)
  // and Google's ya29. OAuth tokens (passed on whole).
  const auto e =
      error_for(500, R"({"error":{"message":"keys sk-ant-api03-AbCdEf12 and ya29.a0AfB_xyz12 refused"}})");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 500: keys sk-ant-*** and ya29.*** refused");
}

TEST(ErrorMap, AVendorMessagesSurroundingWhitespaceIsDropped) {
  // Drift: a trailing line break became a trailing space here, not in gemini.
  const auto e = error_for(500, R"({"error":{"message":"  model overloaded\n"}})");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 500: model overloaded");
}

}  // namespace
}  // namespace openai_test
