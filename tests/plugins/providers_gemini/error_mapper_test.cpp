// on_parse_response with a non-2xx: one test per row of the README's table,
// from Gemini's real error bodies.
#include "plugin_harness.h"

#include <gtest/gtest.h>

#include <cctype>
#include <ctime>

namespace gemini_test {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;
using mgw::testing::RecordedError;

constexpr std::string_view kCredentials =
    "the upstream provider rejected the gateway's credentials; the operator must check the provider's "
    "api_key";

RecordedError error_for(int status, std::string_view body, const Headers& headers = {},
                        std::string_view config = R"({"api_key":"AIzaSyTestKey0123456789abcdefghijklmno"})") {
  Provider p(config);
  Recorder out;
  EXPECT_EQ(p.parse(CallContext{}, status, body, out, headers), MGW_OK);
  EXPECT_EQ(out.events, std::vector<std::string>{"error"}) << "status " << status;
  return out.rec.error.value_or(RecordedError{});
}

TEST(ErrorMap, TokenLimitIs422ContextLengthWithTheVendorsMessage) {
  const auto e = error_for(400, fixture("error_400_context_length.json"));
  EXPECT_EQ(e.http_status, 422);
  EXPECT_EQ(e.code, "context_length_exceeded");
  EXPECT_EQ(e.message,
            "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).");
  EXPECT_EQ(e.param, "messages");
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, TokenLimitInAnArrayBodyIsFoundToo) {
  // Vertex-style wording, in the [{"error": …}] shape Google front ends send.
  const auto e = error_for(400, fixture("error_400_context_length_vertex.json"));
  EXPECT_EQ(e.http_status, 422);
  EXPECT_EQ(e.code, "context_length_exceeded");
  EXPECT_EQ(e.message.rfind("Unable to submit request because the input token count is 1200000", 0), 0u)
      << e.message;
  EXPECT_LE(e.message.size(), 300u);
}

TEST(ErrorMap, Other400IsInvalidParameterWithTheVendorsMessage) {
  const auto e = error_for(400, fixture("error_400_invalid_argument.json"));
  EXPECT_EQ(e.http_status, 400);
  EXPECT_EQ(e.code, "invalid_parameter");
  // The trailing line break Gemini sends is trimmed.
  EXPECT_EQ(e.message,
            "upstream rejected the request: * GenerateContentRequest.contents: contents is not specified");
  EXPECT_EQ(e.param, "");
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, GeminisFieldNamesAreNotPassedOffAsTheClientsParam) {
  const auto e = error_for(400, fixture("error_400_bad_field.json"));
  EXPECT_EQ(e.code, "invalid_parameter");
  EXPECT_EQ(e.param, "");
  EXPECT_EQ(
      e.message,
      "upstream rejected the request: Invalid value at 'generation_config.response_mime_type' (TYPE_STRING), "
      "\"text/csv\"");
}

TEST(ErrorMap, FailedPreconditionIsInvalidParameter) {
  const auto e = error_for(400, fixture("error_400_failed_precondition.json"));
  EXPECT_EQ(e.http_status, 400);
  EXPECT_EQ(e.code, "invalid_parameter");
  EXPECT_EQ(e.message, "upstream rejected the request: User location is not supported for the API use.");
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, A400WithoutAGoogleErrorSaysSoWithoutEchoing) {
  auto e = error_for(400, "bad request: AIzaSyLeakLeakLeakLeakLeakLeakLeakLeak123",
                     {{"Content-Type", "text/plain"}});
  EXPECT_EQ(e.code, "invalid_parameter");
  EXPECT_EQ(e.message, "upstream rejected the request (HTTP 400 with a non-JSON body (text/plain))");
  e = error_for(400, R"({"detail":"nope"})");
  EXPECT_EQ(e.message, "upstream rejected the request (HTTP 400)");
  e = error_for(400, "");
  EXPECT_EQ(e.message, "upstream rejected the request (HTTP 400 with an empty body)");
}

TEST(ErrorMap, AnInvalidKeyIsACredentialsErrorThoughGeminiSays400) {
  const auto e = error_for(400, fixture("error_400_api_key_invalid.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_EQ(e.message, kCredentials);
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, AnApiKeyReasonAloneIsACredentialsErrorAndNeverEchoed) {
  const auto e = error_for(400, fixture("error_400_api_key_reason_only.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.message, kCredentials);
  EXPECT_EQ(e.message.find("Bx7Qm2"), std::string::npos);
}

TEST(ErrorMap, APermissionDeniedStatusIsACredentialsErrorWhateverTheHttpStatus) {
  const auto e = error_for(400, fixture("error_400_permission_denied_status.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.message, kCredentials);
}

TEST(ErrorMap, Unauthenticated401NeverPassesOnTheVendorsText) {
  const auto e = error_for(401, fixture("error_401_unauthenticated.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_EQ(e.message, kCredentials);
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, PermissionDenied403IsTheSameCredentialsError) {
  const auto e = error_for(403, fixture("error_403_permission_denied.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_EQ(e.message, kCredentials);
  EXPECT_EQ(e.message.find("411082643095"), std::string::npos);  // the operator's project number
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, NotFound404NamesTheUpstreamModel) {
  const auto e = error_for(404, fixture("error_404_not_found.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_EQ(e.message, "the upstream provider does not know model 'test-model'");
  EXPECT_FALSE(e.retryable);
}

TEST(ErrorMap, ResourceExhausted429TakesRetryInfosDelay) {
  const auto e = error_for(429, fixture("error_429_retry_info.json"));
  EXPECT_EQ(e.http_status, 429);
  EXPECT_EQ(e.code, "rate_limit_exceeded");
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.retry_after_ms, 22000);
  EXPECT_EQ(e.message, "the upstream provider is rate limiting; retry after 22 seconds");
}

TEST(ErrorMap, RateLimit429PrefersTheRetryAfterHeader) {
  const auto e = error_for(429, fixture("error_429_retry_info.json"), {{"retry-after", "5"}});
  EXPECT_EQ(e.retry_after_ms, 5000);
  EXPECT_EQ(e.message, "the upstream provider is rate limiting; retry after 5 seconds");
}

TEST(ErrorMap, RetryDelayMayHaveAFraction) {
  const auto e = error_for(429, R"({"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"slow down",
    "details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"0.339s"}]}})");
  EXPECT_EQ(e.retry_after_ms, 339);
  EXPECT_EQ(e.message, "the upstream provider is rate limiting; retry after 1 second");
}

TEST(ErrorMap, RateLimit429InTheArrayShapeWithoutAHintSaysRetryLater) {
  const auto e = error_for(429, fixture("error_429_array.json"));
  EXPECT_EQ(e.http_status, 429);
  EXPECT_EQ(e.code, "rate_limit_exceeded");
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.retry_after_ms, -1);
  EXPECT_EQ(e.message, "the upstream provider is rate limiting; retry later");
}

TEST(ErrorMap, AGarbledRetryDelayIsIgnored) {
  for (const char* delay : {"soon", "22", "-3s", "s", "1.5.2s"}) {
    const auto e =
        error_for(429, R"({"error":{"code":429,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo",
      "retryDelay":")" + std::string(delay) +
                           R"("}]}})");
    EXPECT_EQ(e.retry_after_ms, -1) << delay;
  }
}

std::string http_date(std::time_t t, const char* format) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);  // C locale: English names
  return buf;
}

TEST(ErrorMap, RetryAfterReadsEveryHttpDateForm) {
  const std::time_t in_two_minutes = std::time(nullptr) + 120;
  for (const char* format :
       {"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"}) {
    const std::string date = http_date(in_two_minutes, format);
    const auto e = error_for(429, "", {{"Retry-After", date}});
    EXPECT_GT(e.retry_after_ms, 110000) << date;
    EXPECT_LE(e.retry_after_ms, 120000) << date;
  }
}

TEST(ErrorMap, RetryAfterInThePastMeansNowAndGarbageMeansNothing) {
  EXPECT_EQ(error_for(429, "", {{"Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT"}}).retry_after_ms, 0);
  EXPECT_EQ(error_for(429, "", {{"Retry-After", "soon-ish"}}).retry_after_ms, -1);
  EXPECT_EQ(error_for(429, "", {{"Retry-After", "Sun, 06 Nov 1994 08:49:37 PST"}}).retry_after_ms, -1);
}

TEST(ErrorMap, Internal500IsARetryableProviderFailure) {
  const auto e = error_for(500, fixture("error_500_internal.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.message,
            "upstream provider returned HTTP 500: An internal error has occurred. Please retry or report in "
            "https://developers.generativeai.google/guide/troubleshooting");
}

TEST(ErrorMap, Unavailable503IsARetryableProviderFailureWithRetryAfter) {
  const auto e = error_for(503, fixture("error_503_unavailable.json"), {{"Retry-After", "3"}});
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.retry_after_ms, 3000);
  EXPECT_EQ(e.message,
            "upstream provider returned HTTP 503: The model is overloaded. Please try again later.");
}

TEST(ErrorMap, DeadlineExceeded504IsARetryableProviderTimeout) {
  const auto e = error_for(504, fixture("error_504_deadline.json"));
  EXPECT_EQ(e.http_status, 504);
  EXPECT_EQ(e.code, "provider_timeout");
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.message,
            "the upstream provider timed out (HTTP 504): Deadline expired before operation could complete.");
}

TEST(ErrorMap, Timeout408IsARetryableProviderTimeout) {
  const auto e = error_for(408, "");
  EXPECT_EQ(e.http_status, 504);
  EXPECT_EQ(e.code, "provider_timeout");
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.message, "the upstream provider timed out (HTTP 408) with an empty body");
}

TEST(ErrorMap, GooglesHtmlErrorPageIsNamedByItsTypeAndNeverEchoed) {
  const auto e =
      error_for(502, fixture("error_502_google_html.html"), {{"Content-Type", "text/html; charset=UTF-8"}});
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.message, "upstream provider returned HTTP 502 with a non-JSON body (text/html)");
}

TEST(ErrorMap, AnEmptyOrNonJsonBodyWithoutContentTypeSaysSo) {
  EXPECT_EQ(error_for(503, "").message, "upstream provider returned HTTP 503 with an empty body");
  EXPECT_EQ(error_for(500, "upstream connect error").message,
            "upstream provider returned HTTP 500 with a non-JSON body (no content type)");
}

TEST(ErrorMap, AnyOtherStatusIsANonRetryableProviderFailure) {
  for (int status : {302, 409, 413}) {
    const auto e = error_for(status, fixture("error_500_internal.json"), {{"Retry-After", "9"}});
    EXPECT_EQ(e.http_status, 502) << status;
    EXPECT_EQ(e.code, "provider_failed");
    EXPECT_FALSE(e.retryable) << status;
    EXPECT_EQ(e.retry_after_ms, -1) << status;
    EXPECT_EQ(e.message.rfind("upstream provider returned HTTP " + std::to_string(status) + ": ", 0), 0u);
  }
}

TEST(ErrorMap, VendorMessagesAreMaskedAndCutTo300Bytes) {
  const auto e = error_for(500, fixture("error_500_leaky.json"));
  const std::string prefix = "upstream provider returned HTTP 500: ";
  ASSERT_EQ(e.message.rfind(prefix, 0), 0u);
  const std::string vendor = e.message.substr(prefix.size());
  EXPECT_LE(vendor.size(), 300u);
  EXPECT_GT(vendor.size(), 250u);
  EXPECT_NE(vendor.find("?key=AIza***"), std::string::npos) << vendor;
  EXPECT_NE(vendor.find("Authorization: Bearer ***"), std::string::npos) << vendor;
  EXPECT_NE(vendor.find("session token *** expired"), std::string::npos) << vendor;
  EXPECT_EQ(vendor.find("Q7pX3v"), std::string::npos) << vendor;
  EXPECT_EQ(vendor.find("byC8kZ"), std::string::npos) << vendor;
  EXPECT_EQ(vendor.find("9f8e7d"), std::string::npos) << vendor;
}

TEST(ErrorMap, OAuthTokensAreMaskedWithoutBearer) {
  const auto e = error_for(500, R"({"error":{"message":"token ya29.a0AfB_byC8kZr2Lm5Qp7 expired."}})");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 500: token ya29.*** expired.");
}

TEST(ErrorMap, TheConfiguredKeyIsMaskedWhateverItsShape) {
  const auto e = error_for(500, R"({"error":{"message":"bad key tok_live_1234 for project"}})", {},
                           R"({"api_key":"tok_live_1234"})");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 500: bad key *** for project");
}

TEST(ErrorMap, ControlCharactersBecomeSpaces) {
  const auto e = error_for(500, R"({"error":{"message":"line one\nline\ttwo\u0000end"}})");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 500: line one line two end");
}

TEST(ErrorMap, CutsOnAUtf8Boundary) {
  std::string message = "x";
  for (int i = 0; i < 200; ++i) {
    message += "é";  // 2 bytes each: the 300-byte cut falls inside one
  }
  const auto e = error_for(500, R"({"error":{"message":")" + message + R"("}})");
  const std::string vendor = e.message.substr(std::string("upstream provider returned HTTP 500: ").size());
  EXPECT_EQ(vendor.size(), 299u);
  EXPECT_TRUE(valid_utf8(e.message));
}

TEST(ErrorMap, ABareErrorStringIsTheMessage) {
  EXPECT_EQ(error_for(500, R"({"error":"proxy exploded"})").message,
            "upstream provider returned HTTP 500: proxy exploded");
}

// Drifts fixed when the provider helpers moved into the SDK
// (modelgw/provider/): one copy for every provider. Each test names what this
// provider did differently before.

TEST(ErrorMap, RetryAfterReadsAnHttpDateInAnyCase) {
  // Drift: month names were read in capitalised form only ("Nov", not "nov"
  // or "NOV"), unlike the openai and anthropic providers; RFC 9110 asks a
  // recipient to be robust, and one parser now serves all.
  std::string date = http_date(std::time(nullptr) + 120, "%a, %d %b %Y %H:%M:%S GMT");
  for (char& c : date) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  const auto upper = error_for(429, "", {{"Retry-After", date}});
  EXPECT_GT(upper.retry_after_ms, 110000) << date;
  EXPECT_LE(upper.retry_after_ms, 120000) << date;
  for (char& c : date) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  const auto lower = error_for(429, "", {{"Retry-After", date}});
  EXPECT_GT(lower.retry_after_ms, 110000) << date;
  EXPECT_LE(lower.retry_after_ms, 120000) << date;
}

TEST(ErrorMap, ABearerTokenIsMaskedWholeInStandardBase64) {
  // Drift: the token after "Bearer " ended at the first '/', '+' or '=', so
  // the rest of a base64 token passed on; the SDK reads RFC 6750's b64token.
  const auto e = error_for(500, R"({"error":{"message":"header Bearer ab/cd+ef/gh== refused"}})");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 500: header Bearer *** refused");
}

TEST(ErrorMap, AnAnthropicKeyKeepsItsVendorPrefix) {
  // Drift: this provider's table lacked sk-ant-, which the anthropic
  // provider keeps visible; one table now serves all.
  const auto e = error_for(500, R"({"error":{"message":"key sk-ant-api03-AbCdEf12 refused"}})");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 500: key sk-ant-*** refused");
}

}  // namespace
}  // namespace gemini_test
