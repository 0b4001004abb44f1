// on_parse_response with a non-2xx: one test per row of the README's table.
#include "plugin_harness.h"

#include <gtest/gtest.h>

#include <cctype>
#include <ctime>

namespace anthropic_test {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;
using mgw::testing::RecordedError;

RecordedError error_for(int status, std::string_view body, const Headers& headers = {},
                        std::string_view config = kDefaultConfig) {
  Provider p(config);
  Recorder out;
  EXPECT_EQ(p.parse(CallContext{}, status, body, out, headers), MGW_OK);
  EXPECT_EQ(out.events, std::vector<std::string>{"error"}) << "status " << status;
  return out.rec.error.value_or(RecordedError{});
}

constexpr std::string_view kCredentials =
    "the upstream provider rejected the gateway's credentials; the operator must check the provider's "
    "api_key";

TEST(ErrorMap, InvalidRequest400IsInvalidParameterWithTheVendorsMessage) {
  const auto e = error_for(400, fixture("error_400_invalid_request.json"));
  EXPECT_EQ(e.http_status, 400);
  EXPECT_EQ(e.code, "invalid_parameter");
  EXPECT_EQ(
      e.message,
      "upstream rejected the request: messages: roles must alternate between \"user\" and \"assistant\", but "
      "found multiple \"user\" roles in a row");
  EXPECT_EQ(e.param, "messages");
  EXPECT_FALSE(e.retryable);
  EXPECT_EQ(e.retry_after_ms, -1);
}

TEST(ErrorMap, TheFieldAnthropicNamesBecomesTheParamWhenItMapsSurely) {
  EXPECT_EQ(error_for(400, fixture("error_400_max_tokens.json")).param, "max_tokens");
  EXPECT_EQ(error_for(400, R"({"type":"error","error":{"type":"invalid_request_error",
                                "message":"stop_sequences: each must contain non-whitespace"}})")
                .param,
            "stop");
  EXPECT_EQ(error_for(400, R"({"type":"error","error":{"type":"invalid_request_error",
                                "message":"top_k: unexpected value"}})")
                .param,
            "");
  EXPECT_EQ(error_for(400, R"({"type":"error","error":{"type":"invalid_request_error",
                                "message":"Something went wrong"}})")
                .param,
            "");
}

TEST(ErrorMap, PromptTooLongIsContextLengthExceeded) {
  const auto e = error_for(400, fixture("error_400_prompt_too_long.json"));
  EXPECT_EQ(e.http_status, 422);
  EXPECT_EQ(e.code, "context_length_exceeded");
  EXPECT_EQ(e.message, "prompt is too long: 208310 tokens > 200000 maximum");
  EXPECT_EQ(e.param, "messages");
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, InputPlusMaxTokensOverTheLimitIsContextLengthExceeded) {
  const auto e = error_for(400, fixture("error_400_context_limit.json"));
  EXPECT_EQ(e.http_status, 422);
  EXPECT_EQ(e.code, "context_length_exceeded");
  EXPECT_EQ(e.message.rfind("input length and `max_tokens` exceed context limit", 0), 0u) << e.message;
}

TEST(ErrorMap, AnEmptyCreditBalanceIsTheOperatorsProblem) {
  const auto e = error_for(400, fixture("error_400_credit_balance.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_EQ(e.message, "the upstream provider's account is out of credit");
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, A400WithoutAnAnthropicErrorSaysSoWithoutEchoing) {
  auto e = error_for(400, "bad request sk-ant-api03-Leak0In1Plain2Body3", {{"Content-Type", "text/plain"}});
  EXPECT_EQ(e.http_status, 400);
  EXPECT_EQ(e.code, "invalid_parameter");
  EXPECT_EQ(e.message, "upstream rejected the request (HTTP 400 with a non-JSON body (text/plain))");
  e = error_for(400, "");
  EXPECT_EQ(e.message, "upstream rejected the request (HTTP 400 with an empty body)");
}

TEST(ErrorMap, Unauthorized401NeverPassesOnTheVendorsText) {
  const auto e = error_for(401, fixture("error_401_authentication.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_EQ(e.message, kCredentials);
  EXPECT_EQ(e.message.find("x-api-key"), std::string::npos);
  EXPECT_EQ(e.message.find("Test0Key"), std::string::npos);
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, Forbidden403IsTheSameCredentialsError) {
  const auto e = error_for(403, fixture("error_403_permission.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_EQ(e.message, kCredentials);
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, Billing402IsOutOfCredit) {
  const auto e =
      error_for(402, R"({"type":"error","error":{"type":"billing_error","message":"Payment required"}})");
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.message, "the upstream provider's account is out of credit");
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, NotFound404NamesTheUpstreamModel) {
  const auto e = error_for(404, fixture("error_404_not_found.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_EQ(e.message, "the upstream provider does not know model 'test-model'");
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, RequestTooLarge413IsInvalidParameter) {
  const auto e = error_for(413, fixture("error_413_request_too_large.json"));
  EXPECT_EQ(e.http_status, 400);
  EXPECT_EQ(e.code, "invalid_parameter");
  EXPECT_EQ(e.message, "request too large for the upstream provider");
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, Timeout408IsARetryableProviderTimeout) {
  const auto e = error_for(408, "");
  EXPECT_EQ(e.http_status, 504);
  EXPECT_EQ(e.code, "provider_timeout");
  EXPECT_TRUE(e.retryable);
}

TEST(ErrorMap, RateLimit429CarriesRetryAfterSeconds) {
  const auto e =
      error_for(429, fixture("error_429_rate_limit.json"),
                {{"retry-after", "20"}, {"anthropic-ratelimit-input-tokens-reset", "2099-01-01T00:00:00Z"}});
  EXPECT_EQ(e.http_status, 429);
  EXPECT_EQ(e.code, "rate_limit_exceeded");
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.retry_after_ms, 20000);
  EXPECT_EQ(e.message, "the upstream provider is rate limiting; retry after 20 seconds");
}

TEST(ErrorMap, RateLimit429WithoutAHintSaysRetryLater) {
  const auto e = error_for(429, fixture("error_429_rate_limit.json"));
  EXPECT_EQ(e.http_status, 429);
  EXPECT_EQ(e.retry_after_ms, -1);
  EXPECT_EQ(e.message, "the upstream provider is rate limiting; retry later");
  EXPECT_EQ(error_for(429, "", {{"Retry-After", "1"}}).message,
            "the upstream provider is rate limiting; retry after 1 second");
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
  EXPECT_EQ(error_for(429, "", {{"Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT"}}).retry_after_ms, 0);
}

TEST(ErrorMap, RateLimit429IgnoresAGarbledRetryAfter) {
  for (const char* value : {"soon-ish", "-5", "1.5.2", "Sun, 06 Nov 1994 25:49:37 GMT",
                            "Sun, 32 Nov 1994 08:49:37 GMT", "Sun Nov 1994 08:49:37 GMT", ""}) {
    EXPECT_EQ(error_for(429, "", {{"Retry-After", value}}).retry_after_ms, -1) << value;
  }
}

TEST(ErrorMap, ApiError500IsRetryableWithTheVendorsMessage) {
  const auto e = error_for(500, fixture("error_500_api_error.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.message, "upstream provider returned HTTP 500: Internal server error");
}

TEST(ErrorMap, Overloaded529IsRetryableAndPassesOnRetryAfter) {
  const auto e = error_for(529, fixture("error_529_overloaded.json"), {{"Retry-After", "3"}});
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.retry_after_ms, 3000);
  EXPECT_EQ(e.message, "upstream provider returned HTTP 529: Overloaded");
}

TEST(ErrorMap, EveryGatewayStatusIsARetryableProviderFailure) {
  for (int status : {500, 502, 503, 504, 529}) {
    const auto e = error_for(status, fixture("error_529_overloaded.json"));
    EXPECT_EQ(e.http_status, 502) << status;
    EXPECT_EQ(e.code, "provider_failed") << status;
    EXPECT_TRUE(e.retryable) << status;
  }
}

TEST(ErrorMap, AnHtmlBodyIsNamedByItsTypeAndNeverEchoed) {
  const auto e =
      error_for(502, fixture("error_502_gateway.html"), {{"Content-Type", "text/html; charset=UTF-8"}});
  EXPECT_EQ(e.http_status, 502);
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.message, "upstream provider returned HTTP 502 with a non-JSON body (text/html)");
}

TEST(ErrorMap, AnEmptyBodySaysSo) {
  const auto e = error_for(503, "");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 503 with an empty body");
  EXPECT_TRUE(e.retryable);
}

TEST(ErrorMap, AnyOtherStatusIsANonRetryableProviderFailure) {
  for (int status : {302, 409, 418}) {
    const auto e = error_for(status, fixture("error_500_api_error.json"), {{"Retry-After", "3"}});
    EXPECT_EQ(e.http_status, 502) << status;
    EXPECT_EQ(e.code, "provider_failed");
    EXPECT_FALSE(e.retryable) << status;
    EXPECT_EQ(e.retry_after_ms, -1) << status;
    EXPECT_EQ(e.message,
              "upstream provider returned HTTP " + std::to_string(status) + ": Internal server error");
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
  EXPECT_NE(vendor.find("key=sk-ant-***"), std::string::npos) << vendor;
  EXPECT_NE(vendor.find("upstream_token=***"), std::string::npos) << vendor;
  EXPECT_EQ(vendor.find("eyJhbGci"), std::string::npos) << vendor;  // the whole JWT, dots and all
  EXPECT_EQ(vendor.find("c2VjcmV0"), std::string::npos) << vendor;
  EXPECT_EQ(vendor.find("Zr8Kq2"), std::string::npos) << vendor;
  EXPECT_EQ(vendor.find("Q1w2E3"), std::string::npos) << vendor;
  EXPECT_EQ(vendor.find("9f8e7d"), std::string::npos) << vendor;
}

TEST(ErrorMap, AnthropicKeysInVendorMessagesAreMasked) {
  const auto e = error_for(400, fixture("error_400_echoes_key.json"));
  EXPECT_EQ(e.message,
            "upstream rejected the request: messages.0.content.0.text: string sk-ant-*** looks like a "
            "credential and "
            "was rejected");
}

TEST(ErrorMap, TheConfiguredKeyIsMaskedWhateverItsShape) {
  const auto e = error_for(
      500, R"({"type":"error","error":{"type":"api_error","message":"bad key tok.live.1234 here"}})", {},
      R"({"api_key":"tok.live.1234"})");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 500: bad key *** here");
}

TEST(ErrorMap, ControlCharactersBecomeSpaces) {
  const auto e = error_for(
      500, R"({"type":"error","error":{"type":"api_error","message":"line one\nline two\r\u0000"}})");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 500: line one line two  ");
}

TEST(ErrorMap, CutsOnAUtf8Boundary) {
  std::string message = "x";
  for (int i = 0; i < 200; ++i) {
    message += "é";  // 2 bytes each: byte 300 falls inside one
  }
  const auto e =
      error_for(500, R"({"type":"error","error":{"type":"api_error","message":")" + message + R"("}})");
  const std::string vendor = e.message.substr(std::string("upstream provider returned HTTP 500: ").size());
  EXPECT_EQ(vendor.size(), 299u);
  EXPECT_TRUE(valid_utf8(e.message));
}

TEST(ErrorMap, AProxysOpenAIShapedErrorStillGivesItsMessage) {
  const auto e = error_for(503, R"({"error":{"message":"upstream connect error","type":"server_error"}})");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 503: upstream connect error");
}

// Drifts fixed when the provider helpers moved into the SDK
// (modelgw/provider/): one copy for every provider. Each test names what this
// provider did differently before.

TEST(ErrorMap, AFractionalRetryAfterIsRoundedUpNotIgnored) {
  // Drift: "1.5" read as no hint here, as 1500 ms in the openai and gemini
  // providers; waiting too little fails again, so it rounds up.
  EXPECT_EQ(error_for(429, "", {{"Retry-After", "1.5"}}).retry_after_ms, 1500);
  EXPECT_EQ(error_for(429, "", {{"Retry-After", "0.0001"}}).retry_after_ms, 1);
}

TEST(ErrorMap, AHugeRetryAfterSaturatesInsteadOfBeingIgnored) {
  // Drift: more than 18 digits read as no hint here; the others saturate.
  EXPECT_EQ(error_for(429, "", {{"Retry-After", "9999999999999999999999"}}).retry_after_ms,
            1'000'000'000'000);
}

TEST(ErrorMap, RateLimit429ReadsAnHttpDateInAnyCase) {
  // Drift: "GMT" was read in capitals only; RFC 9110 asks a recipient to be
  // robust, and one parser now serves all.
  std::string date = http_date(std::time(nullptr) + 120, "%a, %d %b %Y %H:%M:%S gmt");
  for (char& c : date) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  const auto e = error_for(429, "", {{"Retry-After", date}});
  EXPECT_GT(e.retry_after_ms, 110000) << date;
  EXPECT_LE(e.retry_after_ms, 120000) << date;
}

TEST(ErrorMap, EveryVendorsKeyPrefixIsMasked) {
  // Drift: this provider knew sk-ant- and sk- only, so a key of another
  // vendor (a proxy in front of Anthropic may hold several) passed on.
  const auto e = error_for(
      500,
      R"({"type":"error","error":{"type":"api_error","message":"keys gsk_AbC12 xai-AbC12 hf_AbC12 AIzaSyAb12 sk_live_AbC12 ya29.a0Af_x1 failed"}})");
  EXPECT_EQ(
      e.message,
      "upstream provider returned HTTP 500: keys gsk_*** xai-*** hf_*** AIza*** sk_*** ya29.*** failed");
}

}  // namespace
}  // namespace anthropic_test
