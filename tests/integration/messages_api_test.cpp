// POST /v1/messages and /v1/messages/count_tokens end to end, as the
// @anthropic-ai/sdk and Claude Code call them: a gateway key in x-api-key or
// Authorization, Anthropic's answer and event shapes, errors in Anthropic's
// envelope (with the spec's code, param and request_id inside), passed
// natively to the anthropic plugin (cache_control, thinking and the client's
// anthropic-beta kept) and translated for openai and gemini; a tier falls
// back from native to translated; every stage holds (usage record with its
// operation, idempotent replay).
#include "harness/checks.h"
#include "harness/stack.h"

namespace it {
namespace {

class MessagesApiTest : public SharedStackTest<MessagesApiTest> {
 public:
  static GatewayOptions stack_options() {
    GatewayOptions options;
    options.catalog.push_back({"claude", "anthropic", "claude-sonnet-4-5"});
    options.catalog.push_back({"claude-500", "anthropic", "claude-sonnet-4-5+status=500"});
    options.catalog.push_back({"gemini", "gemini", "gemini-2.5-flash"});
    options.tiers = {{"svc-mixed", {"claude-500", "gpt-4o-mini"}}};
    return options;
  }

 protected:
  static Headers auth(bool api_key_header = true) {
    if (api_key_header) return {{"x-api-key", key()}, {"anthropic-version", "2023-06-01"}};
    return {{"Authorization", "Bearer " + key()}, {"anthropic-version", "2023-06-01"}};
  }
  static HttpResponse post(const json& body, Headers headers = auth(),
                           const std::string& path = "/v1/messages") {
    HttpRequest r;
    r.method = "POST";
    r.path = path;
    r.body = body.dump();
    r.headers = std::move(headers);
    return http_call(port(), r);
  }
  static SseResult stream(json body, const Headers& extra = {}) {
    body["stream"] = true;
    Headers headers = {{"anthropic-version", "2023-06-01"}};
    for (const auto& h : extra) headers.push_back(h);
    return stream_chat(port(), key(), body.dump(), 10000, headers, "/v1/messages");
  }
  static json user(const std::string& text) { return json::array({{{"role", "user"}, {"content", text}}}); }
  static json request(const std::string& model, const std::string& text) {
    return {{"model", model}, {"max_tokens", 256}, {"messages", user(text)}};
  }
  static json usage_record(const std::string& request_id) {
    static const std::string usage_key = stack().gateway->create_key("acme", "usage:read").key;
    stack().usage().wait_for(request_id);
    const auto r = http_get(port(), "/v1/usage?limit=1000", usage_key);
    const json body = r.json();
    if (!body.contains("data")) return json();
    for (const auto& record : body["data"]) {
      if (record["request_id"] == request_id) return record;
    }
    return json();
  }
  // An Anthropic error envelope with the spec's members inside.
  static ::testing::AssertionResult IsAnthropicError(const HttpResponse& r, int status,
                                                     const std::string& type, const std::string& code) {
    if (r.status != status)
      return ::testing::AssertionFailure() << "status " << r.status << " != " << status << ": " << r.body;
    const json body = r.json();
    if (body.value("type", "") != "error" || !body.contains("error"))
      return ::testing::AssertionFailure() << "not Anthropic's envelope: " << r.body;
    const json& e = body["error"];
    if (e.value("type", "") != type) return ::testing::AssertionFailure() << "type: " << r.body;
    if (e.value("code", "") != code) return ::testing::AssertionFailure() << "code: " << r.body;
    if (!e.contains("message") || !e["message"].is_string()) return ::testing::AssertionFailure() << r.body;
    if (e.value("request_id", "") != r.header("x-request-id") ||
        r.header("request-id") != r.header("x-request-id"))
      return ::testing::AssertionFailure() << "request ids: " << r.body;
    return ::testing::AssertionSuccess();
  }
  static std::string text_of(const json& message) {
    std::string out;
    for (const auto& block : message["content"]) {
      if (block["type"] == "text") out += block["text"].get<std::string>();
    }
    return out;
  }
};

TEST_F(MessagesApiTest, ATranslatedModelAnswersInAnthropicsShape) {
  for (const bool api_key_header : {true, false}) {
    const auto r = post(request("gpt-4o-mini", "msg-translated-marker hello"), auth(api_key_header));
    ASSERT_EQ(r.status, 200) << r.body;
    const json body = r.json();
    EXPECT_EQ(body["type"], "message");
    EXPECT_EQ(body["role"], "assistant");
    EXPECT_EQ(body["model"], "gpt-4o-mini");
    EXPECT_EQ(body["stop_reason"], "end_turn");
    EXPECT_TRUE(body["stop_sequence"].is_null());
    EXPECT_EQ(text_of(body), "echo: msg-translated-marker hello");
    EXPECT_GT(body["usage"]["input_tokens"].get<int>(), 0);
    EXPECT_GT(body["usage"]["output_tokens"].get<int>(), 0);
    EXPECT_TRUE(body["usage"].contains("cache_read_input_tokens"));
    EXPECT_EQ(r.header("request-id"), r.header("x-request-id"));
    const json sent = stack().fake->find_request("msg-translated-marker");
    ASSERT_TRUE(sent.is_object());
    EXPECT_EQ(sent["path"], "/v1/chat/completions") << "the openai provider gets the chat translation";
    const json record = usage_record(r.header("x-request-id"));
    EXPECT_EQ(record["operation"], "messages");
  }
}

TEST_F(MessagesApiTest, TheAnthropicProviderGetsTheClientsOwnRequest) {
  json body = {{"model", "claude"},
               {"max_tokens", 300},
               {"system", json::array({{{"type", "text"},
                                        {"text", "msg-native-marker system"},
                                        {"cache_control", {{"type", "ephemeral"}}}}})},
               {"messages", user("hello native")},
               {"metadata", {{"user_id", "u-1"}}}};
  const auto r = post(body, {{"x-api-key", key()},
                             {"anthropic-version", "2023-06-01"},
                             {"anthropic-beta", "prompt-caching-2024-07-31"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json answer = r.json();
  EXPECT_EQ(answer["type"], "message");
  EXPECT_EQ(answer["model"], "claude");
  EXPECT_EQ(text_of(answer), "echo: hello native");
  const json sent = stack().fake->find_request("msg-native-marker");
  ASSERT_TRUE(sent.is_object());
  EXPECT_EQ(sent["path"], "/v1/messages");
  EXPECT_EQ(sent["body"]["model"], "claude-sonnet-4-5") << sent.dump().substr(0, 600);
  EXPECT_EQ(sent["body"]["system"][0]["cache_control"]["type"], "ephemeral") << "cache_control is kept";
  EXPECT_EQ(sent["body"]["metadata"]["user_id"], "u-1");
  EXPECT_EQ(sent["body"]["max_tokens"], 300);
  EXPECT_EQ(sent["headers"]["anthropic-beta"], "prompt-caching-2024-07-31")
      << "the client's beta is passed on";
  // Translated, the beta means nothing: not sent, noted in the log.
  const auto translated = post(request("gpt-4o-mini", "msg-beta-marker x"),
                               {{"x-api-key", key()}, {"anthropic-beta", "prompt-caching-2024-07-31"}});
  ASSERT_EQ(translated.status, 200) << translated.body;
  EXPECT_FALSE(stack().fake->find_request("msg-beta-marker")["headers"].contains("anthropic-beta"));
  EXPECT_TRUE(stack().gateway->wait_log("anthropic-beta header is not passed", std::chrono::seconds(5)));
  EXPECT_EQ(usage_record(r.header("x-request-id"))["provider"], "anthropic");
}

TEST_F(MessagesApiTest, AStreamIsAnthropicsEventSequence) {
  for (const std::string model : {"gpt-4o-mini", "claude", "gemini"}) {
    const auto s = stream(request(model, "msg-stream-" + model + " one two"));
    ASSERT_EQ(s.status, 200) << model << " " << s.body;
    ASSERT_GE(s.events.size(), 5u) << model;
    EXPECT_EQ(s.events.front().type, "message_start") << model;
    EXPECT_EQ(s.events.back().type, "message_stop") << model;
    std::string text;
    bool delta_with_usage = false;
    for (const auto& e : s.events) {
      const json data = json::parse(e.data, nullptr, false);
      ASSERT_TRUE(data.is_object()) << e.data;
      EXPECT_EQ(data["type"], e.type) << "the event name is the data's type";
      if (e.type == "content_block_delta" && data["delta"]["type"] == "text_delta")
        text += data["delta"]["text"].get<std::string>();
      if (e.type == "message_delta") {
        delta_with_usage = data.contains("usage") && data["usage"].contains("output_tokens");
        EXPECT_EQ(data["delta"]["stop_reason"], "end_turn") << model;
      }
    }
    EXPECT_EQ(text, "echo: msg-stream-" + model + " one two") << model;
    EXPECT_TRUE(delta_with_usage) << model;
  }
}

TEST_F(MessagesApiTest, ToolUseOverTwoTurns) {
  const json tools = json::array(
      {{{"name", "lookup"},
        {"description", "finds things"},
        {"input_schema", {{"type", "object"}, {"properties", {{"query", {{"type", "string"}}}}}}}}});
  // Translated: the gemini fake answers a tools request with a call.
  json body = {{"model", "gemini"}, {"max_tokens", 200}, {"tools", tools}, {"messages", user("find cats")}};
  const auto first = post(body);
  ASSERT_EQ(first.status, 200) << first.body;
  const json answer = first.json();
  EXPECT_EQ(answer["stop_reason"], "tool_use");
  json tool_use;
  for (const auto& block : answer["content"]) {
    if (block["type"] == "tool_use") tool_use = block;
  }
  ASSERT_TRUE(tool_use.is_object()) << first.body;
  EXPECT_EQ(tool_use["name"], "lookup");
  EXPECT_TRUE(tool_use["input"].is_object());
  body["messages"].push_back({{"role", "assistant"}, {"content", answer["content"]}});
  body["messages"].push_back({{"role", "user"},
                              {"content", json::array({{{"type", "tool_result"},
                                                        {"tool_use_id", tool_use["id"]},
                                                        {"content", "three cats"}}})}});
  const auto second = post(body);
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(second.json()["type"], "message");
}

TEST_F(MessagesApiTest, ErrorsAreAnthropicsEnvelopeWithTheSpecsCodes) {
  auto r = post({{"model", "gpt-4o-mini"}, {"messages", user("x")}});
  EXPECT_TRUE(IsAnthropicError(r, 400, "invalid_request_error", "missing_required_field")) << r.body;
  EXPECT_EQ(r.json()["error"]["param"], "max_tokens");
  r = post(request("gpt-4o-mini", "x"), {{"x-api-key", "mgw_wrong"}, {"anthropic-version", "2023-06-01"}});
  EXPECT_TRUE(IsAnthropicError(r, 401, "authentication_error", "invalid_api_key")) << r.body;
  r = post(request("no-such-model", "x"));
  EXPECT_TRUE(IsAnthropicError(r, 404, "not_found_error", "model_not_found")) << r.body;
  r = post(request("gpt-4o-mini", "x"), {{"x-api-key", key()}, {"anthropic-version", "1999-01-01"}});
  EXPECT_TRUE(IsAnthropicError(r, 400, "invalid_request_error", "invalid_parameter")) << r.body;
  r = post(request("err-500", "x"));
  EXPECT_EQ(r.json()["type"], "error") << r.body;
  EXPECT_GE(r.status, 500);
  HttpRequest get;
  get.method = "GET";
  get.path = "/v1/messages";
  get.headers = auth();
  r = http_call(port(), get);
  EXPECT_TRUE(IsAnthropicError(r, 405, "invalid_request_error", "method_not_allowed")) << r.body;
}

TEST_F(MessagesApiTest, ATierFallsBackFromNativeToTranslated) {
  const auto r = post(request("svc-mixed", "msg-tier-marker hi"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(text_of(r.json()), "echo: msg-tier-marker hi");
  EXPECT_EQ(r.json()["model"], "gpt-4o-mini");
}

TEST_F(MessagesApiTest, CountTokensIsTheVendorsCountAndNeverBilled) {
  const json body = {{"model", "claude"}, {"messages", user("msg-count-marker count these words")}};
  const auto counted = post(body, auth(), "/v1/messages/count_tokens");
  ASSERT_EQ(counted.status, 200) << counted.body;
  const auto tokens = counted.json()["input_tokens"].get<std::int64_t>();
  EXPECT_GT(tokens, 0);
  // The same prompt sent for real reports the same count.
  json real = body;
  real["max_tokens"] = 50;
  const auto answered = post(real);
  ASSERT_EQ(answered.status, 200) << answered.body;
  EXPECT_EQ(answered.json()["usage"]["input_tokens"], tokens);
  const json record = usage_record(counted.header("x-request-id"));
  EXPECT_EQ(record["total_tokens"], 0);
  EXPECT_EQ(record["cost_micros"], 0);
  for (const std::string model : {"gpt-4o-mini", "gemini"}) {
    const auto other =
        post({{"model", model}, {"messages", user("count me")}}, auth(), "/v1/messages/count_tokens");
    ASSERT_EQ(other.status, 200) << model << " " << other.body;
    EXPECT_GT(other.json()["input_tokens"].get<int>(), 0) << model;
  }
  const auto bad = post({{"model", "claude"}}, auth(), "/v1/messages/count_tokens");
  EXPECT_TRUE(IsAnthropicError(bad, 400, "invalid_request_error", "missing_required_field")) << bad.body;
}

TEST_F(MessagesApiTest, AnIdempotencyKeyReplaysAStreamByteForByte) {
  const Headers idem = {{"Idempotency-Key", "msg-retry-1"}};
  const json body = request("claude", "msg-idem-marker again");
  const auto s1 = stream(body, idem);
  const auto s2 = stream(body, idem);
  ASSERT_EQ(s1.status, 200);
  ASSERT_EQ(s2.status, 200);
  ASSERT_EQ(s1.events.size(), s2.events.size());
  for (std::size_t i = 0; i < s1.events.size(); ++i) EXPECT_EQ(s1.events[i].data, s2.events[i].data);
}

}  // namespace
}  // namespace it
