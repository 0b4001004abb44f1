// on_provider_new: which configurations are accepted, and what a refusal says.
#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace gemini_test {
namespace {

void expect_refused(std::string_view config, std::string_view message) {
  const auto [status, text] = try_config(config);
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT) << config;
  EXPECT_EQ(text, message) << config;
}

TEST(Config, AcceptsTheFullBlockAndIgnoresKeysTheHostReads) {
  const auto [status, text] = try_config(R"({
    "api_key": "AIzaSyTestKey0123456789abcdefghijklmno", "headers": {"X-Team": "search"},
    "base_url": "https://generativelanguage.googleapis.com/v1beta", "timeout_ms": 30000,
    "retries": {"max": 2}, "organization": 7, "whatever_comes_next": null})");
  EXPECT_EQ(status, MGW_OK) << text;
}

TEST(Config, AcceptsAnEmptyNullOrMissingApiKey) {
  // e.g. a proxy in front of Gemini that adds the key itself.
  EXPECT_EQ(try_config(R"({"api_key": ""})").first, MGW_OK);
  EXPECT_EQ(try_config(R"({"api_key": null})").first, MGW_OK);
  EXPECT_EQ(try_config(R"({"base_url": "http://localhost:8080/v1beta"})").first, MGW_OK);
}

TEST(Config, RefusesWhatIsNotAJsonObject) {
  expect_refused("api_key: AIza1", "provider config: not valid JSON");
  expect_refused(R"(["AIza1"])", "provider config: must be a JSON object");
}

TEST(Config, NamesTheKeyWithTheWrongType) {
  expect_refused(R"({"api_key": 42})", "api_key: must be a string");
  expect_refused(R"({"headers": "X-Foo: 1"})", "headers: must be an object of header names to string values");
  expect_refused(R"({"headers": {"X-Team": "a", "X-Foo": 1}})", "headers.X-Foo: must be a string");
}

TEST(Config, RefusesHeaderInjectionWithoutEchoingTheValue) {
  expect_refused(R"({"headers": {"X-Foo": "a\r\nX-Evil: 1"}})",
                 "headers.X-Foo: must not contain control characters such as line breaks");
  expect_refused(R"({"headers": {"Bad Name": "1"}})", "headers: 'Bad Name' is not a valid header name");
}

TEST(Config, RefusesHeadersTheHostOwns) {
  expect_refused(R"({"headers": {"content-length": "5"}})",
                 "headers.content-length: is set by the gateway and cannot be configured");
  expect_refused(R"({"headers": {"Host": "evil.example"}})",
                 "headers.Host: is set by the gateway and cannot be configured");
  expect_refused(R"({"headers": {"Transfer-Encoding": "chunked"}})",
                 "headers.Transfer-Encoding: is set by the gateway and cannot be configured");
}

TEST(Config, RefusesAMalformedKeyWithoutQuotingIt) {
  const std::string key = "AIzaSySecret0Value1Never2Shown3abcdefg";
  auto [status, text] = try_config(R"({"api_key": ")" + key + R"(\n"})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_EQ(text, "api_key: must not contain control characters such as line breaks");
  std::tie(status, text) = try_config(R"({"api_key": " )" + key + R"("})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_EQ(text, "api_key: must not start or end with whitespace");
  std::tie(status, text) = try_config(R"({"api_key": ")" + key + R"(\t"})");
  EXPECT_EQ(text, "api_key: must not start or end with whitespace");
  EXPECT_EQ(text.find("Secret0"), std::string::npos);
}

TEST(Config, NeverLogsTheKey) {
  const std::string key = "AIzaSySecret0Value1Never2Shown3abcdefg";
  Provider p(R"({"api_key": ")" + key + R"("})");
  // Exercise every path that might log: a request, an error, a stream.
  RequestRecorder req;
  Recorder err;
  ASSERT_EQ(p.build(CallContext{}, R"({"model":"a","messages":[{"role":"user","content":"hi"}]})", req, err),
            MGW_OK);
  Recorder res;
  p.parse(CallContext{}, 400, fixture("error_400_api_key_invalid.json"), res);
  Recorder chunks;
  run_stream(p, stream_call(), whole(fixture("stream_text.sse")), chunks);
  const auto logs = p.host().logs();
  ASSERT_FALSE(logs.empty());  // it does say how it authenticates
  for (const auto& [level, line] : logs) {
    EXPECT_EQ(line.find("Secret0"), std::string::npos) << line;
    EXPECT_EQ(line.find("AIza"), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace gemini_test
