// on_parse_response with a 2xx: Anthropic's message → OpenAI's chat.completion.
#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace anthropic_test {
namespace {

struct Parsed {
  Json body;
  std::optional<mgw_usage> usage;
  std::vector<std::string> events;
};

Parsed parse_ok(std::string_view vendor_body, const CallContext& call = CallContext{}) {
  Provider p;
  Recorder out;
  EXPECT_EQ(p.parse(call, 200, vendor_body, out), MGW_OK);
  EXPECT_FALSE(out.rec.error.has_value()) << out.rec.error->message;
  return Parsed{out.rec.body.empty() ? Json() : Json::parse(out.rec.body), out.rec.usage, out.events};
}

// The fixture with `patch` merged in (RFC 7386), to vary one member.
std::string patched(std::string_view name, std::string_view patch) {
  nlohmann::json doc = nlohmann::json::parse(fixture(name));
  doc.merge_patch(nlohmann::json::parse(patch));
  return doc.dump();
}

mgw::testing::RecordedError parse_failure(int status, std::string_view body) {
  Provider p;
  Recorder out;
  EXPECT_EQ(p.parse(CallContext{}, status, body, out), MGW_OK);
  EXPECT_EQ(out.events, std::vector<std::string>{"error"});
  return out.rec.error.value_or(mgw::testing::RecordedError{});
}

TEST(Response, ATextMessageBecomesAChatCompletion) {
  const Parsed r = parse_ok(fixture("message_text.json"));
  EXPECT_EQ(r.body, Json::parse(R"({
    "id": "chatcmpl-msg_01XFDUDYJgAACzvnptvVoYEL",
    "object": "chat.completion",
    "created": 1700000000,
    "model": "test-alias",
        "choices": [{"index": 0,
                 "message": {"role": "assistant", "content": "Hello! How can I help you today?",
                             "refusal": null},
                 "logprobs": null, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 12, "completion_tokens": 11, "total_tokens": 23}})"));
}

TEST(Response, UsageGoesToTheHostBeforeTheBody) {
  const Parsed r = parse_ok(fixture("message_text.json"));
  EXPECT_EQ(r.events, (std::vector<std::string>{"usage", "body"}));
  ASSERT_TRUE(r.usage.has_value());
  EXPECT_EQ(r.usage->struct_size, sizeof(mgw_usage));
  EXPECT_EQ(r.usage->prompt_tokens, 12);
  EXPECT_EQ(r.usage->completion_tokens, 11);
  EXPECT_EQ(r.usage->total_tokens, 23);
}

TEST(Response, TheModelIsTheAliasAndCreatedTheCallsTime) {
  CallContext call;
  call.alias = "claude-standard";
  call.created_unix = 1761000000;
  const Parsed r = parse_ok(fixture("message_text.json"), call);
  EXPECT_EQ(r.body["model"], "claude-standard");
  EXPECT_EQ(r.body["created"], 1761000000);
}

TEST(Response, TheBodyCarriesNoRequestId) {
  const Parsed r = parse_ok(patched("message_text.json", R"({"request_id":"req_vendor"})"));
  EXPECT_FALSE(r.body.contains("request_id"));
}

TEST(Response, ToolUseBlocksBecomeToolCalls) {
  const Parsed r = parse_ok(fixture("message_tool_use.json"));
  const Json& choice = r.body["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_EQ(choice["message"]["content"], "I'll check the current weather in San Francisco for you.");
  const Json& calls = choice["message"]["tool_calls"];
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]["id"], "toolu_01A09q90qw90lq917835lq9");
  EXPECT_EQ(calls[0]["type"], "function");
  EXPECT_EQ(calls[0]["function"]["name"], "get_weather");
  // arguments is JSON text, as OpenAI clients expect.
  ASSERT_TRUE(calls[0]["function"]["arguments"].is_string());
  EXPECT_EQ(Json::parse(calls[0]["function"]["arguments"].get<std::string>()),
            Json::parse(R"({"location":"San Francisco, CA","unit":"celsius"})"));
  EXPECT_EQ(calls[1]["function"]["name"], "get_time");
  EXPECT_EQ(calls[1]["function"]["arguments"], R"({"timezone":"America/Los_Angeles"})");
}

TEST(Response, PromptTokensIncludeCacheWritesAndReads) {
  const Parsed r = parse_ok(fixture("message_tool_use.json"));
  ASSERT_TRUE(r.usage.has_value());
  EXPECT_EQ(r.usage->prompt_tokens, 472 + 100 + 2048);
  EXPECT_EQ(r.usage->completion_tokens, 89);
  EXPECT_EQ(r.usage->total_tokens, 472 + 100 + 2048 + 89);
  EXPECT_EQ(r.usage->cached_prompt_tokens, 2048) << "cache reads are billed at the cached-input price";
  EXPECT_EQ(r.body["usage"], Json::parse(R"({"prompt_tokens":2620,"completion_tokens":89,"total_tokens":2709,
    "prompt_tokens_details":{"cached_tokens":2048}})"));
}

TEST(Response, ThinkingBlocksAreLeftOut) {
  const Parsed r = parse_ok(fixture("message_thinking.json"));
  const Json& message = r.body["choices"][0]["message"];
  EXPECT_EQ(message["content"], "27 × 453 = 12,231");
  EXPECT_FALSE(message.contains("tool_calls"));
  EXPECT_EQ(r.body.dump().find("12231."), std::string::npos);  // the thinking text
  EXPECT_EQ(r.body["choices"][0]["finish_reason"], "length");
}

TEST(Response, NoToolCallsMemberWithoutToolUse) {
  const Parsed r = parse_ok(fixture("message_text.json"));
  EXPECT_FALSE(r.body["choices"][0]["message"].contains("tool_calls"));
}

TEST(Response, SeveralTextBlocksJoinIntoOneContent) {
  const Parsed r = parse_ok(patched("message_text.json", R"({"content":[{"type":"text","text":"The answer"},
      {"type":"text","text":" is 42","citations":[]},{"type":"text","text":"."}]})"));
  EXPECT_EQ(r.body["choices"][0]["message"]["content"], "The answer is 42.");
}

TEST(Response, NoTextMeansNullContent) {
  const Parsed r = parse_ok(fixture("message_refusal.json"));
  EXPECT_TRUE(r.body["choices"][0]["message"]["content"].is_null());
  EXPECT_TRUE(r.body["choices"][0]["message"].contains("content"));
}

TEST(Response, EveryStopReasonMapsToAFinishReason) {
  const std::vector<std::pair<std::string, std::string>> table = {
      {"end_turn", "stop"},
      {"stop_sequence", "stop"},
      {"pause_turn", "stop"},
      {"max_tokens", "length"},
      {"tool_use", "tool_calls"},
      {"refusal", "content_filter"},
      {"model_context_window_exceeded", "stop"},  // one added after this plugin: a plain stop
  };
  for (const auto& [stop, finish] : table) {
    const Parsed r = parse_ok(patched("message_text.json", R"({"stop_reason":")" + stop + R"("})"));
    EXPECT_EQ(r.body["choices"][0]["finish_reason"], finish) << stop;
  }
  EXPECT_EQ(parse_ok(fixture("message_stop_sequence.json")).body["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(parse_ok(fixture("message_refusal.json")).body["choices"][0]["finish_reason"], "content_filter");
  EXPECT_EQ(
      parse_ok(patched("message_text.json", R"({"stop_reason":null})")).body["choices"][0]["finish_reason"],
      "stop");
}

TEST(Response, WithoutUsageThePromptIsTheHostsCountAndTheCompletionAnEstimate) {
  CallContext call;
  call.prompt_tokens = 31;
  // "Grüße aus Köln!" is 17 bytes → ceil(17 / 4) = 5 tokens.
  const Parsed r = parse_ok(fixture("message_no_usage.json"), call);
  ASSERT_TRUE(r.usage.has_value());
  EXPECT_EQ(r.usage->prompt_tokens, 31);
  EXPECT_EQ(r.usage->completion_tokens, 5);
  EXPECT_EQ(r.body["usage"], Json::parse(R"({"prompt_tokens":31,"completion_tokens":5,"total_tokens":36})"));
}

TEST(Response, WithoutAnIdTheRequestIdNamesTheCompletion) {
  nlohmann::json doc = nlohmann::json::parse(fixture("message_text.json"));
  doc.erase("id");
  EXPECT_EQ(parse_ok(doc.dump()).body["id"], "chatcmpl-req_test");
}

TEST(Response, A200ThatIsNotJsonIsAProviderFailureThatEchoesNothing) {
  const auto e = parse_failure(200, fixture("ok_200_not_json.html"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_EQ(e.message, "upstream provider returned HTTP 200 with a body that is not JSON");
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(parse_failure(200, "").message,
            "upstream provider returned HTTP 200 with a body that is not JSON");
}

TEST(Response, A200ErrorIsAProviderFailureWithTheVendorsMessage) {
  const auto e = parse_failure(200, fixture("ok_200_error.json"));
  EXPECT_EQ(e.http_status, 502);
  EXPECT_EQ(e.code, "provider_failed");
  EXPECT_EQ(e.message, "upstream provider returned an error with HTTP 200: Overloaded");
  EXPECT_TRUE(e.retryable);  // overloaded_error
  const auto bad = parse_failure(
      200,
      R"({"type":"error","error":{"type":"invalid_request_error","message":"messages: field required"}})");
  EXPECT_FALSE(bad.retryable);
}

TEST(Response, A200ThatIsNotAMessageIsAProviderFailure) {
  EXPECT_EQ(parse_failure(200, fixture("ok_200_not_message.json")).message,
            "upstream provider returned HTTP 200 with a JSON body that is not a message");
  EXPECT_EQ(parse_failure(200, R"({"type":"message","content":"text"})").message,
            "upstream provider returned HTTP 200 with a JSON body that is not a message");
  EXPECT_EQ(parse_failure(200, "[1,2]").message,
            "upstream provider returned HTTP 200 with a JSON body that is not an object");
}

TEST(Response, AHostileNestingDepthIsRefusedNotSerialised) {
  const std::string deep = R"({"type":"message","content":[{"type":"tool_use","id":"t","name":"f","input":)" +
                           std::string(100000, '[') + std::string(100000, ']') + "}]}";
  const auto e = parse_failure(200, deep);
  EXPECT_EQ(e.code, "provider_failed");
}

}  // namespace
}  // namespace anthropic_test
