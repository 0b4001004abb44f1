// on_provider_new: which configurations are accepted, and what a refusal says.
#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace anthropic_test {
namespace {

void expect_refused(std::string_view config, std::string_view message) {
  const auto [status, text] = try_config(config);
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT) << config;
  EXPECT_EQ(text, message) << config;
}

TEST(Config, AcceptsTheFullBlockAndIgnoresKeysTheHostReads) {
  const auto [status, text] = try_config(R"({
    "api_key": "sk-ant-api03-Test0Key1Abc2Def3Ghi4-Jkl5Mno6AA", "anthropic_version": "2023-06-01",
    "beta": "prompt-caching-2024-07-31,output-128k-2025-02-19", "headers": {"X-Team": "search"},
    "base_url": "https://api.anthropic.com/v1", "timeout_ms": 30000, "retries": {"max": 2},
    "whatever_comes_next": null})");
  EXPECT_EQ(status, MGW_OK) << text;
}

TEST(Config, AcceptsAnEmptyOrMissingApiKey) {
  EXPECT_EQ(try_config(R"({"api_key": ""})").first, MGW_OK);
  EXPECT_EQ(try_config(R"({"base_url": "http://localhost:8080/v1"})").first, MGW_OK);
  EXPECT_EQ(try_config(R"({"api_key": null, "beta": null, "anthropic_version": null})").first, MGW_OK);
}

TEST(Config, RefusesWhatIsNotAJsonObject) {
  expect_refused("api_key: sk-ant-1", "provider config: not valid JSON");
  expect_refused(R"(["sk-ant-1"])", "provider config: must be a JSON object");
}

TEST(Config, NamesTheKeyWithTheWrongType) {
  expect_refused(R"({"api_key": 42})", "api_key: must be a string");
  expect_refused(R"({"anthropic_version": 20230601})", "anthropic_version: must be a string");
  expect_refused(R"({"beta": ["a", "b"]})", "beta: must be a string");
  expect_refused(R"({"headers": "X-Foo: 1"})", "headers: must be an object of header names to string values");
  expect_refused(R"({"headers": {"X-Team": "a", "X-Foo": 1}})", "headers.X-Foo: must be a string");
}

TEST(Config, RefusesAnEmptyVersion) {
  expect_refused(R"({"anthropic_version": ""})",
                 "anthropic_version: must be a non-empty date such as 2023-06-01");
  expect_refused(R"({"anthropic_version": " 2023-06-01"})",
                 "anthropic_version: must be a non-empty date such as 2023-06-01");
}

TEST(Config, RefusesHeaderInjectionWithoutEchoingTheValue) {
  expect_refused(R"({"headers": {"X-Foo": "a\r\nX-Evil: 1"}})",
                 "headers.X-Foo: must not contain control characters such as line breaks");
  expect_refused(R"({"headers": {"Bad Name": "1"}})", "headers: 'Bad Name' is not a valid header name");
  expect_refused(R"({"beta": "tools-2024\n"})",
                 "beta: must not contain control characters such as line breaks");
  expect_refused(R"({"anthropic_version": "2023-06-01\u0000"})",
                 "anthropic_version: must not contain control characters such as line breaks");
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
  const std::string key = "sk-ant-api03-Secret0Value1Never2Shown";
  auto [status, text] = try_config(R"({"api_key": ")" + key + R"(\n"})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_EQ(text, "api_key: must not contain control characters such as line breaks");
  std::tie(status, text) = try_config(R"({"api_key": ")" + key + R"( "})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_EQ(text, "api_key: must not start or end with whitespace");
  EXPECT_EQ(text.find("Secret0"), std::string::npos);
}

TEST(Config, NeverLogsTheKey) {
  const std::string key = "sk-ant-api03-Secret0Value1Never2Shown";
  Provider p(R"({"api_key": ")" + key + R"("})");
  RequestRecorder req;
  Recorder err;
  ASSERT_EQ(p.build(CallContext{}, R"({"model":"a","messages":[{"role":"user","content":"hi"}]})", req, err),
            MGW_OK);
  Recorder res;
  p.parse(CallContext{}, 401,
          R"({"type":"error","error":{"type":"authentication_error","message":")" + key + "\"}}", res);
  const auto logs = p.host().logs();
  ASSERT_FALSE(logs.empty());  // it does say how it authenticates
  for (const auto& [level, line] : logs) {
    EXPECT_EQ(line.find("Secret0"), std::string::npos) << line;
    EXPECT_EQ(line.find("sk-"), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace anthropic_test
