// on_build_request, everything but the conversation: path, headers, model,
// max_tokens, sampling, stop, stream, tools, tool_choice, user, n, and what
// is dropped.
#include "plugin_harness.h"

#include <gtest/gtest.h>

#include <cstddef>

namespace anthropic_test {
namespace {

constexpr std::string_view kMessages = R"("messages":[{"role":"user","content":"hi"}])";

// A client body with `extra` members next to model and messages.
std::string body_with(std::string_view extra) {
  std::string body = R"({"model":"claude-standard",)" + std::string(kMessages);
  if (!extra.empty()) {
    body += "," + std::string(extra);
  }
  return body + "}";
}

Json built(std::string_view extra, const CallContext& call = CallContext{}) {
  static const Provider provider;
  auto b = build(provider, call, body_with(extra));
  EXPECT_EQ(b->status, MGW_OK) << (b->error.rec.error ? b->error.rec.error->message : "");
  return b->body();
}

mgw::testing::RecordedError refused(std::string_view extra) {
  auto b = build(body_with(extra));
  EXPECT_EQ(b->status, MGW_INVALID_ARGUMENT) << extra;
  EXPECT_TRUE(b->req.body.empty());
  return b->error.rec.error.value_or(mgw::testing::RecordedError{});
}

void expect_invalid(std::string_view extra, std::string_view param) {
  const auto e = refused(extra);
  EXPECT_EQ(e.http_status, 400) << extra;
  EXPECT_EQ(e.code, "invalid_parameter") << extra;
  EXPECT_EQ(e.param, param) << extra;
}

TEST(RequestParams, PostsToMessagesWithAnthropicsHeaders) {
  auto b = build(body_with(""));
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.method, "POST");
  EXPECT_EQ(b->req.path, "/messages");
  EXPECT_EQ(b->req.header("x-api-key"), std::string(kApiKey));
  EXPECT_EQ(b->req.header("anthropic-version"), "2023-06-01");
  EXPECT_EQ(b->req.header("content-type"), "application/json");
  EXPECT_EQ(b->req.header("accept"), "application/json");
  EXPECT_FALSE(b->req.header("authorization").has_value());  // Anthropic's key goes in x-api-key
  EXPECT_FALSE(b->req.header("anthropic-beta").has_value());
}

TEST(RequestParams, AStreamAcceptsEventStreamAndAsksForIt) {
  Provider p;
  auto b = build(p, stream_call(), body_with(""));
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.header("accept"), "text/event-stream");
  EXPECT_EQ(b->body()["stream"], true);
}

TEST(RequestParams, ANonStreamedCallNeverAsksForAStream) {
  // call->stream decides how the host reads the answer, not the client's field.
  EXPECT_FALSE(built(R"("stream":true)").contains("stream"));
  EXPECT_FALSE(built("").contains("stream"));
}

TEST(RequestParams, TheModelIsTheCatalogsUpstreamModel) {
  CallContext call;
  call.upstream_model = "claude-sonnet-4-5-20250929";
  EXPECT_EQ(built("", call)["model"], "claude-sonnet-4-5-20250929");
}

TEST(RequestParams, MaxTokensComesFromTheClient) {
  EXPECT_EQ(built(R"("max_tokens":256)")["max_tokens"], 256);
  EXPECT_EQ(built(R"("max_completion_tokens":512)")["max_tokens"], 512);
  // The current name wins over the deprecated one.
  EXPECT_EQ(built(R"("max_tokens":256,"max_completion_tokens":512)")["max_tokens"], 512);
  EXPECT_EQ(built(R"("max_tokens":null,"max_completion_tokens":77)")["max_tokens"], 77);
}

TEST(RequestParams, MaxTokensDefaultsToTheCatalogsThenTo4096) {
  CallContext call;
  call.default_max_tokens = 8192;
  EXPECT_EQ(built("", call)["max_tokens"], 8192);
  EXPECT_EQ(built(R"("max_tokens":100)", call)["max_tokens"], 100);  // the client's still wins
  EXPECT_EQ(built("")["max_tokens"], 4096);
}

TEST(RequestParams, MaxTokensMustBeAPositiveInteger) {
  expect_invalid(R"("max_tokens":0)", "max_tokens");
  expect_invalid(R"("max_tokens":-5)", "max_tokens");
  expect_invalid(R"("max_tokens":"100")", "max_tokens");
  expect_invalid(R"("max_completion_tokens":1.5)", "max_completion_tokens");
}

TEST(RequestParams, TemperatureAndTopPPassThrough) {
  const Json body = built(R"("temperature":0.7,"top_p":0.95)");
  EXPECT_EQ(body["temperature"], 0.7);
  EXPECT_EQ(body["top_p"], 0.95);
  EXPECT_EQ(built(R"("temperature":1)")["temperature"], 1);
  EXPECT_EQ(built(R"("temperature":0)")["temperature"], 0);
  EXPECT_FALSE(built(R"("temperature":null)").contains("temperature"));
  EXPECT_FALSE(built("").contains("top_p"));
}

TEST(RequestParams, TemperatureAboveOneIsUnsupportedNotClamped) {
  const auto e = refused(R"("temperature":1.2)");
  EXPECT_EQ(e.http_status, 422);
  EXPECT_EQ(e.code, "unsupported_parameter");
  EXPECT_EQ(e.param, "temperature");
  EXPECT_EQ(e.message, "temperature above 1 is not supported by Anthropic models (range 0 to 1)");
  EXPECT_FALSE(e.retryable);
  expect_invalid(R"("temperature":"hot")", "temperature");
  expect_invalid(R"("top_p":"high")", "top_p");
}

TEST(RequestParams, StopBecomesStopSequences) {
  EXPECT_EQ(built(R"("stop":"END")")["stop_sequences"], Json::parse(R"(["END"])"));
  EXPECT_EQ(built(R"("stop":["\n\nHuman:","END"])")["stop_sequences"],
            Json::parse(R"(["\n\nHuman:","END"])"));
  EXPECT_FALSE(built(R"("stop":[])").contains("stop_sequences"));
  EXPECT_FALSE(built(R"("stop":null)").contains("stop_sequences"));
  EXPECT_FALSE(built(R"("stop":"END")").contains("stop"));
  expect_invalid(R"("stop":["a",1])", "stop");
  expect_invalid(R"("stop":7)", "stop");
}

TEST(RequestParams, FunctionToolsBecomeAnthropicTools) {
  const Json body = built(R"("tools":[
    {"type":"function","function":{"name":"lookup","description":"Looks up","strict":true,
      "parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}},
    {"type":"function","function":{"name":"now"}}])");
  EXPECT_EQ(body["tools"], Json::parse(R"([
    {"name":"lookup","description":"Looks up",
     "input_schema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}},
    {"name":"now","input_schema":{"type":"object","properties":{}}}])"));
  EXPECT_FALSE(body.contains("tool_choice"));
  EXPECT_FALSE(built(R"("tools":[])").contains("tools"));
}

TEST(RequestParams, MalformedToolsAreRefusedByPosition) {
  expect_invalid(R"("tools":[{"type":"function","function":{"name":"a"}},{"type":"web_search"}])",
                 "tools[1].type");
  expect_invalid(R"("tools":[{"type":"function","function":{"description":"no name"}}])",
                 "tools[0].function.name");
  expect_invalid(R"("tools":[{"type":"function","function":{"name":"a","parameters":"{}"}}])",
                 "tools[0].function.parameters");
  expect_invalid(R"("tools":{"type":"function"})", "tools");
}

constexpr std::string_view kOneTool = R"("tools":[{"type":"function","function":{"name":"f"}}])";

Json choice(std::string_view extra) {
  return built(std::string(kOneTool) + "," + std::string(extra))["tool_choice"];
}

TEST(RequestParams, ToolChoiceMapsEveryOpenAIForm) {
  EXPECT_EQ(choice(R"("tool_choice":"auto")"), Json::parse(R"({"type":"auto"})"));
  EXPECT_EQ(choice(R"("tool_choice":"required")"), Json::parse(R"({"type":"any"})"));
  EXPECT_EQ(choice(R"("tool_choice":"none")"), Json::parse(R"({"type":"none"})"));
  EXPECT_EQ(choice(R"("tool_choice":{"type":"function","function":{"name":"f"}})"),
            Json::parse(R"({"type":"tool","name":"f"})"));
}

TEST(RequestParams, AnUnknownToolChoiceIsRefused) {
  expect_invalid(std::string(kOneTool) + R"(,"tool_choice":"sometimes")", "tool_choice");
  expect_invalid(std::string(kOneTool) + R"(,"tool_choice":{"type":"function"})", "tool_choice");
  expect_invalid(std::string(kOneTool) + R"(,"tool_choice":{"type":"allowed_tools","allowed_tools":{}})",
                 "tool_choice");
}

TEST(RequestParams, NoParallelToolCallsDisablesParallelToolUse) {
  EXPECT_EQ(choice(R"("parallel_tool_calls":false)"),
            Json::parse(R"({"type":"auto","disable_parallel_tool_use":true})"));
  EXPECT_EQ(choice(R"("parallel_tool_calls":false,"tool_choice":"required")"),
            Json::parse(R"({"type":"any","disable_parallel_tool_use":true})"));
  EXPECT_EQ(
      choice(R"("parallel_tool_calls":false,"tool_choice":{"type":"function","function":{"name":"f"}})"),
      Json::parse(R"({"type":"tool","name":"f","disable_parallel_tool_use":true})"));
  // Anthropic's "none" takes no such flag.
  EXPECT_EQ(choice(R"("parallel_tool_calls":false,"tool_choice":"none")"), Json::parse(R"({"type":"none"})"));
  EXPECT_TRUE(choice(R"("parallel_tool_calls":true)").is_null());
  // Without tools there is nothing to call in parallel.
  EXPECT_FALSE(built(R"("parallel_tool_calls":false)").contains("tool_choice"));
}

TEST(RequestParams, UserBecomesMetadataUserId) {
  EXPECT_EQ(built(R"("user":"u-42")")["metadata"], Json::parse(R"({"user_id":"u-42"})"));
  EXPECT_FALSE(built(R"("user":"u-42")").contains("user"));
  EXPECT_FALSE(built("").contains("metadata"));
  expect_invalid(R"("user":42)", "user");
}

TEST(RequestParams, MoreThanOneChoiceIsUnsupported) {
  const auto e = refused(R"("n":2)");
  EXPECT_EQ(e.http_status, 422);
  EXPECT_EQ(e.code, "unsupported_parameter");
  EXPECT_EQ(e.param, "n");
  EXPECT_FALSE(built(R"("n":1)").contains("n"));
}

TEST(RequestParams, OpenAIOnlyFieldsAreDroppedSilently) {
  const Json body = built(R"("frequency_penalty":0.5,"presence_penalty":0.2,"logprobs":true,"top_logprobs":3,
    "response_format":{"type":"json_object"},"seed":42,"stream_options":{"include_usage":true},
    "request_id":"req_gateway","logit_bias":{"50256":-100},"service_tier":"auto","store":true,
    "metadata":{"team":"x"},"reasoning_effort":"low","modalities":["text"],"prediction":null,"web_search_options":{})");
  std::vector<std::string> keys;
  for (const auto& item : body.items()) {
    keys.push_back(item.key());
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"model", "max_tokens", "messages"})) << body.dump();
}

TEST(RequestParams, ABodyThatIsNotAnObjectIsRefused) {
  for (std::string_view body : {"[]", "not json", ""}) {
    auto b = build(body);
    EXPECT_EQ(b->status, MGW_INVALID_ARGUMENT) << body;
    ASSERT_TRUE(b->error.rec.error.has_value());
    EXPECT_EQ(b->error.rec.error->http_status, 400);
    EXPECT_EQ(b->error.rec.error->code, "invalid_parameter");
  }
}

TEST(RequestParams, ConfiguredVersionBetaAndHeadersAreSent) {
  Provider p(R"({"api_key":"k-123456789","anthropic_version":"2024-01-01","beta":"prompt-caching-2024-07-31",
               "headers":{"X-Team":"search","ANTHROPIC-VERSION":"2025-02-02"}})");
  auto b = build(p, CallContext{}, body_with(""));
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.header("x-api-key"), "k-123456789");
  EXPECT_EQ(b->req.header("anthropic-beta"), "prompt-caching-2024-07-31");
  EXPECT_EQ(b->req.header("x-team"), "search");
  // An extra header named like a built-in one (any case) replaces it: sent once.
  int versions = 0;
  for (const auto& [name, value] : b->req.headers) {
    if (name == "anthropic-version" || name == "ANTHROPIC-VERSION") {
      ++versions;
      EXPECT_EQ(value, "2025-02-02");
    }
  }
  EXPECT_EQ(versions, 1);
}

TEST(RequestParams, AConfiguredAcceptReplacesOurs) {
  Provider p(R"({"api_key":"k-123456789","headers":{"Accept":"application/x-ndjson"}})");
  auto b = build(p, stream_call(), body_with(""));
  ASSERT_EQ(b->status, MGW_OK);
  int accepts = 0;
  for (const auto& [name, value] : b->req.headers) {
    accepts += (name == "Accept" || name == "accept") ? 1 : 0;
  }
  EXPECT_EQ(accepts, 1);
  EXPECT_EQ(b->req.header("accept"), "application/x-ndjson");
}

TEST(RequestParams, WithoutAnApiKeyNoKeyHeaderIsSent) {
  Provider p(R"({"base_url":"http://localhost:8080/v1"})");
  auto b = build(p, CallContext{}, body_with(""));
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_FALSE(b->req.header("x-api-key").has_value());
  EXPECT_EQ(b->req.header("anthropic-version"), "2023-06-01");
}

}  // namespace
}  // namespace anthropic_test
