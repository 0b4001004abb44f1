// on_parse_response with a 2xx: the body the client gets, and the usage.
#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace openai_test {
namespace {

TEST(ParseResponse, ServesTheAliasAndKeepsTheRest) {
  Provider p;
  Recorder out;
  const std::string wire = fixture("chat_completion.json");
  ASSERT_EQ(p.parse(CallContext{}, 200, wire, out), MGW_OK);
  ASSERT_FALSE(out.rec.error.has_value());
  Json expected = Json::parse(wire);
  expected["model"] = "test-alias";
  EXPECT_EQ(Json::parse(out.rec.body), expected);
}

TEST(ParseResponse, ReportsTheVendorsUsageBeforeTheBody) {
  Provider p;
  Recorder out;
  p.parse(CallContext{}, 200, fixture("chat_completion.json"), out);
  ASSERT_TRUE(out.rec.usage.has_value());
  EXPECT_EQ(out.rec.usage->prompt_tokens, 19);
  EXPECT_EQ(out.rec.usage->completion_tokens, 10);
  EXPECT_EQ(out.rec.usage->total_tokens, 29);
  EXPECT_EQ(out.events, (std::vector<std::string>{"usage", "body"}));
}

TEST(ParseResponse, ReportsCachedPromptTokens) {
  Provider p;
  Recorder out;
  Json wire = Json::parse(fixture("chat_completion.json"));
  wire["usage"]["prompt_tokens_details"] = {{"cached_tokens", 12}};
  p.parse(CallContext{}, 200, wire.dump(), out);
  ASSERT_TRUE(out.rec.usage.has_value());
  EXPECT_EQ(out.rec.usage->cached_prompt_tokens, 12);
  EXPECT_EQ(Json::parse(out.rec.body)["usage"]["prompt_tokens_details"]["cached_tokens"], 12);
  // More cached than prompt tokens (a vendor bug) is capped at the prompt.
  Recorder capped;
  wire["usage"]["prompt_tokens_details"]["cached_tokens"] = 1000;
  p.parse(CallContext{}, 200, wire.dump(), capped);
  EXPECT_EQ(capped.rec.usage->cached_prompt_tokens, 19);
}

TEST(ParseResponse, RemovesTheVendorsRequestId) {
  Provider p;
  Recorder out;
  p.parse(CallContext{}, 200, fixture("chat_completion_compat_no_usage.json"), out);
  const Json body = Json::parse(out.rec.body);
  EXPECT_FALSE(body.contains("request_id"));
  EXPECT_EQ(body["model"], "test-alias");
}

TEST(ParseResponse, EstimatesUsageWhenTheVendorSentNone) {
  // Two choices: 35 + 31 bytes of UTF-8 content → ceil(66 / 4) = 17 tokens.
  Provider p;
  Recorder out;
  p.parse(CallContext{}, 200, fixture("chat_completion_compat_no_usage.json"), out);
  ASSERT_TRUE(out.rec.usage.has_value());
  EXPECT_EQ(out.rec.usage->prompt_tokens, 0);
  EXPECT_EQ(out.rec.usage->completion_tokens, 17);
  EXPECT_EQ(out.rec.usage->total_tokens, 17);
  // The client sees the same numbers: the spec puts usage in every response.
  EXPECT_EQ(Json::parse(out.rec.body)["usage"],
            Json::parse(R"({"prompt_tokens":0,"completion_tokens":17,"total_tokens":17})"));
}

TEST(ParseResponse, TheEstimateTakesTheHostsPromptCountWhenTheVendorSentNone) {
  // An OpenAI-compatible upstream without usage: the prompt is the host's
  // count, not 0 (as the anthropic and gemini providers do).
  Provider p;
  Recorder out;
  CallContext call;
  call.prompt_tokens = 120;
  p.parse(call, 200, fixture("chat_completion_compat_no_usage.json"), out);
  ASSERT_TRUE(out.rec.usage.has_value());
  EXPECT_EQ(out.rec.usage->prompt_tokens, 120);
  EXPECT_EQ(out.rec.usage->completion_tokens, 17);
  EXPECT_EQ(out.rec.usage->total_tokens, 137);
  EXPECT_EQ(Json::parse(out.rec.body)["usage"],
            Json::parse(R"({"prompt_tokens":120,"completion_tokens":17,"total_tokens":137})"));
}

TEST(ParseResponse, TheVendorsUsageWinsOverTheHostsPromptCount) {
  Provider p;
  Recorder out;
  CallContext call;
  call.prompt_tokens = 120;
  p.parse(call, 200, fixture("chat_completion.json"), out);
  ASSERT_TRUE(out.rec.usage.has_value());
  EXPECT_EQ(out.rec.usage->prompt_tokens, 19);
}

TEST(ParseResponse, EstimateCountsToolCallArguments) {
  // 48 bytes of arguments, no text → ceil(48 / 4) = 12.
  Provider p;
  Recorder out;
  p.parse(CallContext{}, 200, fixture("chat_completion_tool_calls_no_usage.json"), out);
  ASSERT_TRUE(out.rec.usage.has_value());
  EXPECT_EQ(out.rec.usage->completion_tokens, 12);
}

TEST(ParseResponse, TotalIsTheSumWhenTheVendorOmitsIt) {
  Provider p;
  Recorder out;
  p.parse(
      CallContext{}, 200,
      R"({"id":"x","object":"chat.completion","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":5}})",
      out);
  ASSERT_TRUE(out.rec.usage.has_value());
  EXPECT_EQ(out.rec.usage->total_tokens, 12);
}

void expect_bad_success(std::string_view body, std::string_view message, std::string_view must_not_echo) {
  Provider p;
  Recorder out;
  ASSERT_EQ(p.parse(CallContext{}, 200, body, out), MGW_OK);
  EXPECT_EQ(out.events, std::vector<std::string>{"error"}) << body;
  ASSERT_TRUE(out.rec.error.has_value());
  EXPECT_EQ(out.rec.error->http_status, 502);
  EXPECT_EQ(out.rec.error->code, "provider_failed");
  EXPECT_TRUE(out.rec.error->retryable);
  EXPECT_EQ(out.rec.error->message, message);
  if (!must_not_echo.empty()) {
    EXPECT_EQ(out.rec.error->message.find(must_not_echo), std::string::npos);
  }
}

TEST(ParseResponse, A2xxThatIsNotJsonFailsWithoutEchoingIt) {
  expect_bad_success("<html><body>Welcome to nginx!</body></html>",
                     "upstream provider returned HTTP 200 with a body that is not JSON", "nginx");
}

TEST(ParseResponse, A2xxThatIsNotAnObjectFails) {
  expect_bad_success(R"(["chatcmpl"])",
                     "upstream provider returned HTTP 200 with a JSON body that is not an object",
                     "chatcmpl");
}

TEST(ParseResponse, A2xxWithoutChoicesFails) {
  expect_bad_success(fixture("ok_200_no_choices.json"),
                     "upstream provider returned HTTP 200 without a \"choices\" array", "");
  expect_bad_success(R"({"choices":{"0":{}}})",
                     "upstream provider returned HTTP 200 without a \"choices\" array", "");
}

TEST(ParseResponse, A2xxCarryingAnErrorFailsWithTheMaskedMessage) {
  expect_bad_success(
      fixture("ok_200_error_object.json"),
      "upstream provider returned an error with HTTP 200: Upstream worker crashed for key sk-***", "abcDEF");
}

TEST(ParseResponse, A2xxNestedTooDeepFailsInsteadOfCrashing) {
  const std::string deep = R"({"choices":[)" + std::string(100000, '[') + std::string(100000, ']') + "]}";
  expect_bad_success(deep, "upstream provider returned HTTP 200 with a body that is not JSON", "");
}

}  // namespace
}  // namespace openai_test
