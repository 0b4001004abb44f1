// on_parse_response with a 2xx: the chat.completion the client gets, and usage.
#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace gemini_test {
namespace {

struct Parsed {
  Json body;
  std::optional<mgw_usage> usage;
  std::vector<std::string> events;
};

Parsed parse_ok(std::string_view wire, const CallContext& call = CallContext{}) {
  Provider p;
  Recorder out;
  EXPECT_EQ(p.parse(call, 200, wire, out), MGW_OK);
  EXPECT_FALSE(out.rec.error.has_value()) << out.rec.error->message;
  Parsed r;
  r.body = Json::parse(out.rec.body, nullptr, false);
  r.usage = out.rec.usage;
  r.events = out.events;
  return r;
}

// A one-candidate response with `parts` (a JSON array) and `finish`.
std::string candidate(std::string_view parts, std::string_view finish) {
  return R"({"candidates":[{"content":{"role":"model","parts":)" + std::string(parts) +
         R"(},"finishReason":")" + std::string(finish) +
         R"("}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}})";
}

TEST(ParseResponse, TranslatesPlainTextIntoAChatCompletion) {
  const Parsed r = parse_ok(fixture("generate_text.json"));
  EXPECT_EQ(r.body, Json::parse(R"({
    "id": "chatcmpl-lXmHaJyPLcSnz7IPqY3m0Qk", "object": "chat.completion", "created": 1700000000,
    "model": "test-alias",     "choices": [{"index": 0, "message": {"role": "assistant",
                 "content": "Paris is the capital of France. It sits on the Seine.", "refusal": null},
                 "logprobs": null, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 9, "completion_tokens": 13, "total_tokens": 22}})"));
}

TEST(ParseResponse, ReportsUsageBeforeTheBodyAndWritesNoRequestId) {
  const Parsed r = parse_ok(fixture("generate_text.json"));
  EXPECT_EQ(r.events, (std::vector<std::string>{"usage", "body"}));
  ASSERT_TRUE(r.usage.has_value());
  EXPECT_EQ(r.usage->struct_size, sizeof(mgw_usage));
  EXPECT_EQ(r.usage->prompt_tokens, 9);
  EXPECT_EQ(r.usage->completion_tokens, 13);
  EXPECT_EQ(r.usage->total_tokens, 22);
  EXPECT_FALSE(r.body.contains("request_id"));
}

TEST(ParseResponse, UsesTheCallsCreatedTimeAndAlias) {
  CallContext call;
  call.alias = "svc-smart";
  call.created_unix = 1754000000;
  const Parsed r = parse_ok(fixture("generate_text.json"), call);
  EXPECT_EQ(r.body["model"], "svc-smart");
  EXPECT_EQ(r.body["created"], 1754000000);
}

TEST(ParseResponse, WithoutAResponseIdTheIdComesFromTheRequestId) {
  CallContext call;
  call.request_id = "req_7f3a";
  const Parsed r = parse_ok(fixture("generate_safety_stop.json"), call);
  EXPECT_EQ(r.body["id"], "chatcmpl-req_7f3a");
}

TEST(ParseResponse, FunctionCallsBecomeToolCallsWithGeneratedIds) {
  const Parsed r = parse_ok(fixture("generate_function_call.json"));
  EXPECT_EQ(r.body["choices"], Json::parse(R"([{"index": 0, "message": {"role": "assistant", "content": null,
    "refusal": null, "tool_calls": [
      {"id": "call_0_0", "type": "function",
       "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\",\"unit\":\"celsius\"}"}},
      {"id": "call_0_1", "type": "function", "function": {"name": "list_cities", "arguments": "{}"}}]},
    "logprobs": null, "finish_reason": "tool_calls"}])"));
}

TEST(ParseResponse, ThinkingTokensCountAsCompletion) {
  // candidatesTokenCount 31 + thoughtsTokenCount 66.
  const Parsed r = parse_ok(fixture("generate_function_call.json"));
  ASSERT_TRUE(r.usage.has_value());
  EXPECT_EQ(r.usage->prompt_tokens, 71);
  EXPECT_EQ(r.usage->completion_tokens, 97);
  EXPECT_EQ(r.usage->total_tokens, 168);
  EXPECT_EQ(r.body["usage"],
            Json::parse(R"({"prompt_tokens": 71, "completion_tokens": 97, "total_tokens": 168,
    "completion_tokens_details": {"reasoning_tokens": 66}})"));
}

TEST(ParseResponse, KeepsGeminisOwnFunctionCallIdAndTheTextBesideIt) {
  const Parsed r = parse_ok(fixture("generate_function_call_with_id.json"));
  const Json& message = r.body["choices"][0]["message"];
  EXPECT_EQ(message["content"], "Let me look that up.");
  EXPECT_EQ(message["tool_calls"][0]["id"], "fc_8a1b2c3d");
  EXPECT_EQ(message["tool_calls"][0]["function"]["arguments"], R"({"city":"Lyon"})");
  EXPECT_EQ(r.body["choices"][0]["finish_reason"], "tool_calls");
}

TEST(ParseResponse, LeavesThoughtsOutAndJoinsTheTextParts) {
  const Parsed r = parse_ok(fixture("generate_thoughts.json"));
  EXPECT_EQ(r.body["choices"][0]["message"], Json::parse(R"({"role": "assistant",
    "content": "17 + 25 = 42. That is the answer.", "refusal": null})"));
  EXPECT_EQ(r.body["choices"][0]["finish_reason"], "stop");
}

TEST(ParseResponse, ReportsCachedAndReasoningTokens) {
  const Parsed r = parse_ok(fixture("generate_thoughts.json"));
  EXPECT_EQ(r.body["usage"],
            Json::parse(R"({"prompt_tokens": 12, "completion_tokens": 1030, "total_tokens": 1042,
    "prompt_tokens_details": {"cached_tokens": 4}, "completion_tokens_details": {"reasoning_tokens": 1021}})"));
  EXPECT_EQ(r.usage->completion_tokens, 1030);
  EXPECT_EQ(r.usage->total_tokens, 1042);
  EXPECT_EQ(r.usage->cached_prompt_tokens, 4);
}

TEST(ParseResponse, ABlockedPromptIsAFilteredCompletionNotAnError) {
  const Parsed r = parse_ok(fixture("generate_blocked_prompt.json"));
  EXPECT_EQ(r.body["choices"], Json::parse(R"([{"index": 0, "message": {"role": "assistant", "content": null,
    "refusal": null}, "logprobs": null, "finish_reason": "content_filter"}])"));
  EXPECT_EQ(r.body["id"], "chatcmpl-b0KIaJ6cM8Krz7IPv9nJ2QE");
  EXPECT_EQ(r.body["usage"],
            Json::parse(R"({"prompt_tokens": 7, "completion_tokens": 0, "total_tokens": 7})"));
  EXPECT_EQ(r.events, (std::vector<std::string>{"usage", "body"}));
}

TEST(ParseResponse, ACandidateStoppedForSafetyHasNoContent) {
  const Parsed r = parse_ok(fixture("generate_safety_stop.json"));
  EXPECT_EQ(r.body["choices"][0]["message"],
            Json::parse(R"({"role": "assistant", "content": null, "refusal": null})"));
  EXPECT_EQ(r.body["choices"][0]["finish_reason"], "content_filter");
}

TEST(ParseResponse, MaxTokensIsLength) {
  EXPECT_EQ(parse_ok(fixture("generate_max_tokens.json")).body["choices"][0]["finish_reason"], "length");
}

TEST(ParseResponse, EveryFinishReasonMapsToOpenAIs) {
  const std::vector<std::pair<std::string, std::string>> table = {
      {"STOP", "stop"},
      {"MAX_TOKENS", "length"},
      {"SAFETY", "content_filter"},
      {"RECITATION", "content_filter"},
      {"BLOCKLIST", "content_filter"},
      {"PROHIBITED_CONTENT", "content_filter"},
      {"SPII", "content_filter"},
      {"IMAGE_SAFETY", "content_filter"},
      {"OTHER", "stop"},
      {"LANGUAGE", "stop"},
      {"MALFORMED_FUNCTION_CALL", "stop"},
      {"FINISH_REASON_UNSPECIFIED", "stop"},
      {"SOMETHING_NEW", "stop"},
  };
  for (const auto& [gemini, openai] : table) {
    const Parsed r = parse_ok(candidate(R"([{"text":"x"}])", gemini));
    EXPECT_EQ(r.body["choices"][0]["finish_reason"], openai) << gemini;
  }
}

TEST(ParseResponse, OnlyStopWithFunctionCallsIsToolCalls) {
  const std::string call = R"([{"functionCall":{"name":"f","args":{}}}])";
  EXPECT_EQ(parse_ok(candidate(call, "STOP")).body["choices"][0]["finish_reason"], "tool_calls");
  EXPECT_EQ(parse_ok(candidate(call, "MAX_TOKENS")).body["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(parse_ok(candidate(call, "OTHER")).body["choices"][0]["finish_reason"], "stop");
}

TEST(ParseResponse, AMissingFinishReasonReadsAsStop) {
  const Parsed r =
      parse_ok(R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f"}}]}}]})");
  EXPECT_EQ(r.body["choices"][0]["finish_reason"], "tool_calls");
}

TEST(ParseResponse, EachCandidateIsAChoiceWithItsIndex) {
  const Parsed r = parse_ok(fixture("generate_two_candidates.json"));
  ASSERT_EQ(r.body["choices"].size(), 2u);
  EXPECT_EQ(r.body["choices"][0]["index"], 0);  // Gemini omitted index 0
  EXPECT_EQ(r.body["choices"][0]["message"]["content"], "Bonjour !");
  EXPECT_EQ(r.body["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(r.body["choices"][1]["index"], 1);
  EXPECT_EQ(r.body["choices"][1]["message"]["content"], "Salut, comment");
  EXPECT_EQ(r.body["choices"][1]["finish_reason"], "length");
}

TEST(ParseResponse, GeneratedIdsNameTheCandidate) {
  const Parsed r = parse_ok(R"({"candidates":[
    {"content":{"parts":[{"text":"a"}]},"finishReason":"STOP"},
    {"index":1,"content":{"parts":[{"functionCall":{"name":"f","args":{"x":1}}}]},"finishReason":"STOP"}]})");
  EXPECT_EQ(r.body["choices"][1]["message"]["tool_calls"][0]["id"], "call_1_0");
}

TEST(ParseResponse, IgnoresUnknownFieldsAndPartKinds) {
  const Parsed r = parse_ok(R"json({"candidates":[{"content":{"role":"model","parts":[
      {"executableCode":{"language":"PYTHON","code":"print(1)"}},
      {"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"1"}},
      {"text":"Done."}, 7]},
    "finishReason":"STOP","groundingMetadata":{"webSearchQueries":["x"]},"citationMetadata":{}}],
    "usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2,"totalTokenCount":5},
    "modelVersion":"gemini-2.5-flash","createTime":"2026-01-01T00:00:00Z","futureField":{"a":1}})json");
  EXPECT_EQ(r.body["choices"][0]["message"]["content"], "Done.");
  EXPECT_FALSE(r.body.contains("futureField"));
  EXPECT_FALSE(r.body.contains("modelVersion"));
}

TEST(ParseResponse, TotalIsTheSumWhenGeminiOmitsIt) {
  const Parsed r = parse_ok(R"({"candidates":[{"content":{"parts":[{"text":"a"}]},"finishReason":"STOP"}],
    "usageMetadata":{"promptTokenCount":7,"candidatesTokenCount":5,"thoughtsTokenCount":2}})");
  EXPECT_EQ(r.usage->total_tokens, 14);
  EXPECT_EQ(r.body["usage"]["total_tokens"], 14);
}

TEST(ParseResponse, EstimatesUsageWhenGeminiSentNone) {
  // "Grüße aus Köln!" is 18 bytes → ceil(18 / 4) = 5; the prompt is the host's count.
  CallContext call;
  call.prompt_tokens = 11;
  const Parsed r = parse_ok(
      R"({"candidates":[{"content":{"parts":[{"text":"Grüße aus Köln!"}]},"finishReason":"STOP"}]})", call);
  ASSERT_TRUE(r.usage.has_value());
  EXPECT_EQ(r.usage->prompt_tokens, 11);
  EXPECT_EQ(r.usage->completion_tokens, 5);
  EXPECT_EQ(r.usage->total_tokens, 16);
  EXPECT_EQ(r.body["usage"],
            Json::parse(R"({"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16})"));
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
  expect_bad_success("", "upstream provider returned HTTP 200 with a body that is not JSON", "");
}

TEST(ParseResponse, A2xxThatIsNotAnObjectFails) {
  expect_bad_success(R"(["candidates"])",
                     "upstream provider returned HTTP 200 with a JSON body that is not an object", "");
}

TEST(ParseResponse, A2xxWithoutCandidatesOrABlockFails) {
  expect_bad_success(R"({"usageMetadata":{"promptTokenCount":3}})",
                     "upstream provider returned HTTP 200 without candidates or a prompt block reason", "");
  expect_bad_success(R"({"candidates":[],"promptFeedback":{"safetyRatings":[]}})",
                     "upstream provider returned HTTP 200 without candidates or a prompt block reason", "");
  expect_bad_success(R"({"candidates":{"0":{}}})",
                     "upstream provider returned HTTP 200 with a \"candidates\" member that is not an array",
                     "");
}

TEST(ParseResponse, A2xxCarryingAnErrorFailsWithTheMaskedMessage) {
  expect_bad_success(
      fixture("ok_200_error_object.json"),
      "upstream provider returned an error with HTTP 200: Backend worker crashed while serving key "
      "AIza***",
      "D4b8Xk");
  expect_bad_success(R"([{"error":{"code":500,"message":"boom","status":"INTERNAL"}}])",
                     "upstream provider returned an error with HTTP 200: boom", "");
}

TEST(ParseResponse, A2xxNestedTooDeepFailsInsteadOfCrashing) {
  const std::string deep = R"({"candidates":[)" + std::string(100000, '[') + std::string(100000, ']') + "]}";
  expect_bad_success(deep, "upstream provider returned HTTP 200 with a body that is not JSON", "");
}

}  // namespace
}  // namespace gemini_test
