// POST /v1/responses (the OpenAI Responses API) through the real gateway to
// the fake upstream of each vendor: the request is served by the chat chain
// and answered as a response object or the typed event stream, whatever
// vendor is behind the alias; errors name the Responses parameters; keys,
// idempotency and usage records hold as they do for chat.
#include "harness/checks.h"
#include "harness/stack.h"

#include <map>
#include <set>

namespace it {
namespace {

using namespace std::chrono_literals;

const std::vector<std::string>& vendor_aliases() {
  static const std::vector<std::string> all = {"gpt", "claude", "gemini"};
  return all;
}

class ResponsesApiTest : public SharedStackTest<ResponsesApiTest> {
 public:
  // One alias per vendor, and the faults the tests need.
  static GatewayOptions stack_options() {
    GatewayOptions options;
    options.catalog = {
        {"gpt", "openai", "gpt-4o-mini"},
        {"claude", "anthropic", "claude-sonnet-4-5"},
        {"gemini", "gemini", "gemini-2.5-flash"},
        {"gpt-cut-2", "openai", "gpt-4o-mini+cut_after=2"},
        {"claude-cut-2", "anthropic", "claude-sonnet-4-5+cut_after=2"},
        {"gpt-500", "openai", "gpt-4o-mini+status=500"},
    };
    return options;
  }

 protected:
  static HttpResponse post_responses(const json& body, const Headers& extra = {}) {
    return it::post_responses(port(), key(), body, extra);
  }
  static SseResult stream_responses(json body, const Headers& extra = {}) {
    body["stream"] = true;
    return stream_chat(port(), key(), body.dump(), 10000, extra, "/v1/responses");
  }
};

std::string suffix_of(const std::string& request_id) {
  return request_id.substr(4);  // req_<24>
}

// The one output_text of a response's message item, or "<none>".
std::string output_text(const json& response) {
  for (const auto& item : response["output"]) {
    if (item["type"] != "message") continue;
    for (const auto& part : item["content"]) {
      if (part["type"] == "output_text") return part["text"].get<std::string>();
    }
  }
  return "<none>";
}

const json kWeatherTool = {{"type", "function"},
                           {"name", "lookup_weather"},
                           {"description", "Looks up the weather for a query."},
                           {"parameters",
                            {{"type", "object"},
                             {"properties", {{"query", {{"type", "string"}}}}},
                             {"required", json::array({"query"})}}},
                           {"strict", true}};

TEST_F(ResponsesApiTest, AnInputStringIsAnsweredAsAResponseObjectByEveryVendor) {
  for (const auto& alias : vendor_aliases()) {
    SCOPED_TRACE(alias);
    const auto r = post_responses({{"model", alias},
                                   {"instructions", "You are a test."},
                                   {"input", "Hello there world"},
                                   {"metadata", {{"k", "v"}}}});
    ASSERT_EQ(r.status, 200) << r.body;
    const std::string id = r.header("x-request-id");
    ASSERT_TRUE(is_request_id(id)) << id;
    const json body = r.json();
    EXPECT_EQ(body["id"], "resp_" + suffix_of(id));
    EXPECT_EQ(body["object"], "response");
    EXPECT_EQ(body["status"], "completed");
    EXPECT_EQ(body["model"], alias);
    EXPECT_EQ(body["request_id"], id);
    EXPECT_EQ(body["instructions"], "You are a test.");
    EXPECT_EQ(body["metadata"], json({{"k", "v"}}));
    EXPECT_TRUE(body["error"].is_null());
    EXPECT_TRUE(body["incomplete_details"].is_null());
    ASSERT_EQ(body["output"].size(), 1u) << r.body;
    const json& item = body["output"][0];
    EXPECT_EQ(item["type"], "message");
    EXPECT_EQ(item["role"], "assistant");
    EXPECT_EQ(item["status"], "completed");
    EXPECT_EQ(item["id"], "msg_" + suffix_of(id));
    EXPECT_EQ(output_text(body), "echo: Hello there world");
    // The fake's count for [system "You are a test.", user "Hello there world"]: 17 in, 4 out.
    EXPECT_EQ(body["usage"]["input_tokens"], 17) << r.body;
    EXPECT_EQ(body["usage"]["output_tokens"], 4);
    EXPECT_EQ(body["usage"]["total_tokens"], 21);
    EXPECT_EQ(body["usage"]["input_tokens_details"]["cached_tokens"], 0);
    EXPECT_EQ(body["usage"]["output_tokens_details"]["reasoning_tokens"], 0);
  }
}

TEST_F(ResponsesApiTest, InputItemsBecomeTheChatConversationUpstream) {
  const json input = json::array({
      {{"type", "message"},
       {"role", "user"},
       {"content", json::array({{{"type", "input_text"}, {"text", "items-marker-31 weather?"}}})}},
      {{"type", "reasoning"}, {"id", "rs_1"}, {"summary", json::array()}},
      {{"type", "function_call"},
       {"call_id", "call_a"},
       {"name", "lookup_weather"},
       {"arguments", "{\"query\":\"Paris\"}"}},
      {{"type", "function_call_output"}, {"call_id", "call_a"}, {"output", "sunny"}},
      {{"role", "user"}, {"content", "and tomorrow?"}},
  });
  const auto r = post_responses({{"model", "gpt"},
                                 {"instructions", "Be brief."},
                                 {"input", input},
                                 {"tools", json::array({kWeatherTool})},
                                 {"tool_choice", "auto"},
                                 {"max_output_tokens", 77},
                                 {"temperature", 0.5},
                                 {"text", {{"format", {{"type", "json_object"}}}}}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(output_text(r.json()), "echo: and tomorrow?");
  EXPECT_EQ(r.json()["max_output_tokens"], 77);
  EXPECT_EQ(r.json()["temperature"], 0.5);

  const json sent = stack().fake->find_request("items-marker-31");
  ASSERT_TRUE(sent.is_object()) << "the fake upstream never saw the request";
  EXPECT_EQ(sent["path"], "/v1/chat/completions");
  const json& body = sent["body"];
  EXPECT_EQ(body["max_tokens"], 77);
  EXPECT_EQ(body["temperature"], 0.5);
  EXPECT_EQ(body["response_format"], json({{"type", "json_object"}}));
  EXPECT_EQ(body["tools"][0]["function"]["name"], "lookup_weather");
  EXPECT_EQ(body["tools"][0]["function"]["strict"], true);
  const json& m = body["messages"];
  ASSERT_EQ(m.size(), 5u) << body.dump();
  EXPECT_EQ(m[0], json({{"role", "system"}, {"content", "Be brief."}}));
  EXPECT_EQ(m[1]["role"], "user");
  EXPECT_EQ(m[1]["content"][0], json({{"type", "text"}, {"text", "items-marker-31 weather?"}}));
  EXPECT_EQ(m[2]["role"], "assistant");
  EXPECT_EQ(m[2]["tool_calls"][0]["id"], "call_a");
  EXPECT_EQ(m[2]["tool_calls"][0]["function"]["arguments"], "{\"query\":\"Paris\"}");
  EXPECT_EQ(m[3], json({{"role", "tool"}, {"tool_call_id", "call_a"}, {"content", "sunny"}}));
  EXPECT_EQ(m[4], json({{"role", "user"}, {"content", "and tomorrow?"}}));
}

TEST_F(ResponsesApiTest, AToolCallIsAFunctionCallItem) {
  for (const std::string alias : {"claude", "gemini"}) {
    SCOPED_TRACE(alias);
    const auto r = post_responses(
        {{"model", alias}, {"input", "weather in Oslo"}, {"tools", json::array({kWeatherTool})}});
    ASSERT_EQ(r.status, 200) << r.body;
    const json body = r.json();
    ASSERT_EQ(body["output"].size(), 1u) << r.body;
    const json& call = body["output"][0];
    EXPECT_EQ(call["type"], "function_call");
    EXPECT_EQ(call["name"], "lookup_weather");
    EXPECT_EQ(call["status"], "completed");
    EXPECT_FALSE(call["call_id"].get<std::string>().empty());
    EXPECT_EQ(call["id"].get<std::string>().rfind("fc_", 0), 0u);
    EXPECT_EQ(json::parse(call["arguments"].get<std::string>()), json({{"query", "weather in Oslo"}}));
  }
}

// Checks the framing every event shares and returns their types in order.
std::vector<std::string> event_types(const SseResult& s, const std::string& request_id) {
  std::vector<std::string> types;
  std::int64_t expected_sequence = 0;
  for (const auto& e : s.events) {
    const json data = json::parse(e.data, nullptr, false);
    EXPECT_TRUE(data.is_object()) << e.data;
    if (!data.is_object()) continue;
    EXPECT_EQ(data["type"], e.type) << "the event: field names the data's type";
    EXPECT_EQ(data["sequence_number"], expected_sequence++) << e.data;
    EXPECT_EQ(data["request_id"], request_id) << e.data;
    types.push_back(e.type);
  }
  return types;
}

TEST_F(ResponsesApiTest, AStreamIsTheTypedEventSequenceForEveryVendor) {
  for (const auto& alias : vendor_aliases()) {
    SCOPED_TRACE(alias);
    const auto s = stream_responses({{"model", alias}, {"input", "one two three"}});
    ASSERT_EQ(s.status, 200) << s.body;
    EXPECT_EQ(s.header("content-type").rfind("text/event-stream", 0), 0u);
    EXPECT_TRUE(s.error.empty()) << s.error;
    const std::string id = s.header("x-request-id");
    const auto types = event_types(s, id);
    ASSERT_GE(types.size(), 8u);
    const std::vector<std::string> head = {"response.created", "response.in_progress",
                                           "response.output_item.added", "response.content_part.added"};
    EXPECT_EQ(std::vector<std::string>(types.begin(), types.begin() + 4), head);
    const std::vector<std::string> tail = {"response.output_text.done", "response.content_part.done",
                                           "response.output_item.done", "response.completed"};
    EXPECT_EQ(std::vector<std::string>(types.end() - 4, types.end()), tail);
    std::string deltas;
    for (std::size_t i = 4; i + 4 < types.size(); ++i) {
      EXPECT_EQ(types[i], "response.output_text.delta");
      deltas += json::parse(s.events[i].data)["delta"].get<std::string>();
    }
    EXPECT_EQ(deltas, "echo: one two three");
    const json created = json::parse(s.events[0].data)["response"];
    EXPECT_EQ(created["status"], "in_progress");
    EXPECT_EQ(created["id"], "resp_" + suffix_of(id));
    const json done = json::parse(s.events.back().data)["response"];
    EXPECT_EQ(done["status"], "completed");
    EXPECT_EQ(done["id"], created["id"]);
    EXPECT_EQ(output_text(done), "echo: one two three");
    EXPECT_EQ(done["usage"]["input_tokens"], 8);  // 4 + ceil(13/4)
    EXPECT_EQ(done["usage"]["output_tokens"], 4);
  }
}

TEST_F(ResponsesApiTest, NamespacedToolsAreNamedBackAndHostedToolsAreLeftOutSayingSo) {
  const json ns = {
      {"type", "namespace"},
      {"name", "weather"},
      {"description", "Weather tools."},
      {"tools",
       json::array(
           {{{"type", "function"}, {"name", "lookup"}, {"parameters", kWeatherTool["parameters"]}}})}};
  const json tools =
      json::array({ns, {{"type", "web_search"}}, {{"type", "file_search"}, {"vector_store_ids", {"vs"}}}});
  for (const bool stream : {false, true}) {
    SCOPED_TRACE(stream ? "streamed" : "whole");
    json body = {{"model", "claude"}, {"input", "ns-marker weather in Lima"}, {"tools", tools}};
    json call;
    std::string dropped;
    if (stream) {
      const auto s = stream_responses(body);
      ASSERT_EQ(s.status, 200) << s.body;
      dropped = s.header("x-dropped-tools");
      call = json::parse(s.events.back().data)["response"]["output"][0];
    } else {
      const auto r = post_responses(body);
      ASSERT_EQ(r.status, 200) << r.body;
      dropped = r.header("x-dropped-tools");
      call = r.json()["output"][0];
    }
    EXPECT_EQ(dropped, "web_search, file_search");
    EXPECT_EQ(call["type"], "function_call");
    EXPECT_EQ(call["namespace"], "weather");
    EXPECT_EQ(call["name"], "lookup");
  }
  const json sent = stack().fake->find_request("ns-marker");
  ASSERT_TRUE(sent.is_object());
  ASSERT_EQ(sent["body"]["tools"].size(), 1u) << "hosted tools are not sent: " << sent["body"].dump();
  EXPECT_EQ(sent["body"]["tools"][0]["name"], "weather__lookup");
}

TEST_F(ResponsesApiTest, AStreamedToolCallIsArgumentDeltasThenDone) {
  const auto s = stream_responses(
      {{"model", "claude"}, {"input", "weather in Rome"}, {"tools", json::array({kWeatherTool})}});
  ASSERT_EQ(s.status, 200) << s.body;
  const auto types = event_types(s, s.header("x-request-id"));
  ASSERT_GE(types.size(), 5u);
  EXPECT_EQ(types[2], "response.output_item.added");
  const json added = json::parse(s.events[2].data)["item"];
  EXPECT_EQ(added["type"], "function_call");
  EXPECT_EQ(added["name"], "lookup_weather");
  std::string arguments;
  std::string done_arguments;
  for (std::size_t i = 0; i < types.size(); ++i) {
    const json data = json::parse(s.events[i].data);
    if (types[i] == "response.function_call_arguments.delta") arguments += data["delta"].get<std::string>();
    if (types[i] == "response.function_call_arguments.done")
      done_arguments = data["arguments"].get<std::string>();
  }
  EXPECT_EQ(arguments, done_arguments);
  EXPECT_EQ(json::parse(done_arguments), json({{"query", "weather in Rome"}}));
  EXPECT_EQ(types.back(), "response.completed");
  const json done = json::parse(s.events.back().data)["response"];
  ASSERT_EQ(done["output"].size(), 1u);
  EXPECT_EQ(done["output"][0]["arguments"], done_arguments);
}

TEST_F(ResponsesApiTest, AStreamCutAfterItBeganEndsFailedThenWithTheErrorEnvelope) {
  for (const std::string alias : {"gpt-cut-2", "claude-cut-2"}) {
    SCOPED_TRACE(alias);
    const auto s = stream_responses({{"model", alias}, {"input", "a b c d e f"}});
    ASSERT_EQ(s.status, 200) << s.body;
    const std::string id = s.header("x-request-id");
    const auto types = event_types(s, id);
    ASSERT_GE(types.size(), 3u);
    EXPECT_EQ(types[types.size() - 2], "response.failed");
    EXPECT_EQ(types.back(), "error");
    const json failed = json::parse(s.events[s.events.size() - 2].data)["response"];
    EXPECT_EQ(failed["status"], "failed");
    EXPECT_EQ(failed["error"]["code"], "provider_failed");
    // What was streamed before the cut stays in the failed response's output,
    // its item incomplete, as the deltas the client already saw built it.
    std::string streamed;
    for (const auto& e : s.events) {
      const json data = json::parse(e.data, nullptr, false);
      if (data.is_object() && data.value("type", "") == "response.output_text.delta")
        streamed += data["delta"];
    }
    ASSERT_FALSE(streamed.empty()) << "the cut came after some text";
    ASSERT_EQ(failed["output"].size(), 1u) << failed.dump();
    EXPECT_EQ(failed["output"][0]["status"], "incomplete");
    EXPECT_EQ(failed["output"][0]["content"][0]["text"], streamed) << failed.dump();
    const json error = json::parse(s.events.back().data);
    EXPECT_EQ(error["error"]["code"], "provider_failed");
    EXPECT_EQ(error["error"]["type"], "api_error");
    EXPECT_EQ(error["error"]["request_id"], id);
    EXPECT_EQ(error["code"], "provider_failed");
  }
}

TEST_F(ResponsesApiTest, AFailureBeforeAnswerIsTheErrorEnvelope) {
  const auto r = post_responses({{"model", "gpt-500"}, {"input", "x"}});
  EXPECT_EQ(r.status, 502) << r.body;
  EXPECT_EQ(r.json()["error"]["code"], "provider_failed");
  EXPECT_EQ(r.json()["error"]["request_id"], r.header("x-request-id"));
}

TEST_F(ResponsesApiTest, BadRequestsNameTheResponsesParameter) {
  struct Case {
    json body;
    int status;
    std::string code;
    std::string param;
  };
  const json tool_web = {{"type", "teleport"}};
  const std::vector<Case> cases = {
      {{{"model", "gpt"}, {"input", "x"}, {"bogus", 1}}, 400, "unknown_parameter", "bogus"},
      {{{"model", "gpt"}}, 400, "missing_required_field", "input"},
      {{{"input", "x"}}, 400, "missing_required_field", "model"},
      {{{"model", "gpt"}, {"input", 5}}, 400, "invalid_parameter", "input"},
      {{{"model", "gpt"}, {"input", json::array()}}, 400, "invalid_parameter", "input"},
      {{{"model", "gpt"},
        {"input", json::array({{{"role", "user"}, {"content", json::array({{{"type", "bogus"}}})}}})}},
       400,
       "invalid_parameter",
       "input[0].content[0].type"},
      {{{"model", "gpt"}, {"input", json::array({{{"role", "robot"}, {"content", "x"}}})}},
       400,
       "invalid_parameter",
       "input[0].role"},
      {{{"model", "gpt"}, {"input", json::array({{{"type", "function_call_output"}, {"output", "x"}}})}},
       400,
       "missing_required_field",
       "input[0].call_id"},
      {{{"model", "gpt"}, {"input", "x"}, {"tools", json::array({tool_web})}},
       422,
       "unsupported_parameter",
       "tools[0].type"},
      {{{"model", "gpt"}, {"input", "x"}, {"max_output_tokens", 0}},
       400,
       "invalid_parameter",
       "max_output_tokens"},
      {{{"model", "gpt"}, {"input", "x"}, {"store", "yes"}}, 400, "invalid_parameter", "store"},
      {{{"model", "gpt"}, {"input", "x"}, {"previous_response_id", "resp_never"}},
       400,
       "previous_response_not_found",
       "previous_response_id"},
      {{{"model", "gpt"}, {"input", "x"}, {"truncation", "auto"}},
       422,
       "unsupported_parameter",
       "truncation"},
      {{{"model", "gpt"}, {"input", "x"}, {"text", {{"format", {{"type", "json_schema"}}}}}},
       400,
       "missing_required_field",
       "text.format.name"},
      {{{"model", "no-such-model"}, {"input", "x"}}, 404, "model_not_found", "model"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body.dump());
    const auto r = post_responses(c.body);
    EXPECT_EQ(r.status, c.status) << r.body;
    const json e = r.json()["error"];
    EXPECT_EQ(e["code"], c.code) << r.body;
    EXPECT_EQ(e["param"], c.param) << r.body;
    EXPECT_EQ(e["request_id"], r.header("x-request-id"));
  }
}

TEST_F(ResponsesApiTest, MethodAndKeyAreCheckedAsForChat) {
  const auto get = http_get(port(), "/v1/responses", key());
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(get.header("allow"), "POST");
  HttpRequest anonymous;
  anonymous.path = "/v1/responses";
  anonymous.body = json({{"model", "gpt"}, {"input", "x"}}).dump();
  const auto r = http_call(port(), anonymous);
  EXPECT_EQ(r.status, 401) << r.body;
  EXPECT_EQ(r.json()["error"]["type"], "authentication_error");
}

TEST_F(ResponsesApiTest, AnIdempotentRetryGetsTheSameAnswerAndTheKeyIsBoundToThisApi) {
  const Headers idem = {{"Idempotency-Key", "responses-retry-1"}};
  const json body = {{"model", "gpt"}, {"input", "idempotent responses"}};
  const auto first = post_responses(body, idem);
  ASSERT_EQ(first.status, 200) << first.body;
  const auto again = post_responses(body, idem);
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.body, first.body) << "a replay is the first answer, byte for byte";
  // The same key on another API is another request.
  HttpRequest chat;
  chat.body = body.dump();
  chat.headers = {{"Authorization", "Bearer " + key()}, {"Idempotency-Key", "responses-retry-1"}};
  const auto other = http_call(port(), chat);
  EXPECT_EQ(other.status, 422) << other.body;
  EXPECT_EQ(other.json()["error"]["code"], "idempotency_key_reused");

  // Streamed: the replay is the same events.
  const Headers idem_stream = {{"Idempotency-Key", "responses-retry-2"}};
  const auto s1 = stream_responses(body, idem_stream);
  const auto s2 = stream_responses(body, idem_stream);
  ASSERT_EQ(s1.status, 200);
  ASSERT_EQ(s2.status, 200);
  ASSERT_EQ(s1.events.size(), s2.events.size());
  for (std::size_t i = 0; i < s1.events.size(); ++i) {
    EXPECT_EQ(s1.events[i].type, s2.events[i].type);
    EXPECT_EQ(s1.events[i].data, s2.events[i].data);
  }
}

TEST_F(ResponsesApiTest, EveryRequestLeavesOneUsageRecord) {
  const auto plain = post_responses({{"model", "claude"}, {"input", "records one"}});
  ASSERT_EQ(plain.status, 200);
  const auto streamed = stream_responses({{"model", "gemini"}, {"input", "records two"}});
  ASSERT_EQ(streamed.status, 200);
  const auto refused = post_responses({{"model", "gpt"}, {"input", "x"}, {"bogus", 1}});
  ASSERT_EQ(refused.status, 400);
  for (const auto* r : {&plain.headers, &streamed.headers, &refused.headers}) {
    std::string id;
    for (const auto& [name, value] : *r) {
      if (name == "x-request-id") id = value;
    }
    const auto rec = stack().usage().wait_for(id);
    ASSERT_TRUE(rec) << id;
    EXPECT_EQ(stack().usage().records_for(id).size(), 1u);
  }
  // The records say which API each came through, and GET /v1/usage filters by it.
  const std::string usage_key = stack().gateway->create_key("acme", "usage:read").key;
  const auto by_operation = http_get(port(), "/v1/usage?operation=responses&limit=100", usage_key);
  ASSERT_EQ(by_operation.status, 200) << by_operation.body;
  std::set<std::string> ids;
  const json listed = by_operation.json();
  for (const auto& record : listed["data"]) {
    EXPECT_EQ(record["operation"], "responses");
    ids.insert(record["request_id"].get<std::string>());
  }
  for (const auto* r : {&plain, &refused}) EXPECT_EQ(ids.count(r->header("x-request-id")), 1u);
  EXPECT_EQ(ids.count(streamed.header("x-request-id")), 1u);
  const auto chat_only = http_get(port(), "/v1/usage?operation=chat.completions&limit=100", usage_key);
  const json chat_listed = chat_only.json();
  for (const auto& record : chat_listed["data"]) EXPECT_EQ(ids.count(record["request_id"]), 0u);

  const auto rec = stack().usage().wait_for(plain.header("x-request-id"));
  EXPECT_EQ(rec->alias, "claude");
  EXPECT_EQ(rec->provider, "anthropic");
  EXPECT_EQ(rec->prompt_tokens, 7);  // 4 + ceil(11/4)
  EXPECT_EQ(rec->completion_tokens, 3);
  const auto srec = stack().usage().wait_for(streamed.header("x-request-id"));
  EXPECT_TRUE(srec->streamed);
  EXPECT_EQ(srec->completion_tokens, 3);
}

}  // namespace
}  // namespace it

namespace it {
namespace {

// Kept responses: store (OpenAI's default) keeps each answered turn, so
// previous_response_id continues a conversation (on another vendor too), and
// GET/DELETE /v1/responses/{id} and its input_items read it back; a tenant
// never reads another's.
TEST_F(ResponsesApiTest, AKeptResponseContinuesAConversationAcrossVendorsAndIsReadBack) {
  const auto first =
      post_responses({{"model", "gpt"}, {"instructions", "Be brief."}, {"input", "kept-turn-one alpha"}});
  ASSERT_EQ(first.status, 200) << first.body;
  const json one = first.json();
  EXPECT_EQ(one["store"], true) << "store is OpenAI's default, and this gateway's storage keeps responses";
  const std::string id = one["id"];

  // The second turn goes to another vendor, which gets the whole conversation.
  const auto second = post_responses(
      {{"model", "claude"}, {"previous_response_id", id}, {"input", "kept-turn-two beta"}, {"store", true}});
  ASSERT_EQ(second.status, 200) << second.body;
  const json two = second.json();
  EXPECT_EQ(two["previous_response_id"], id);
  EXPECT_EQ(output_text(two), "echo: kept-turn-two beta");
  const json sent = stack().fake->find_request("kept-turn-two");
  ASSERT_TRUE(sent.is_object());
  // Anthropic's form: the earlier user turn and the answer to it come first.
  const json& messages = sent["body"]["messages"];
  ASSERT_EQ(messages.size(), 3u) << sent["body"].dump();
  EXPECT_NE(messages[0].dump().find("kept-turn-one alpha"), std::string::npos);
  EXPECT_EQ(messages[1]["role"], "assistant");
  EXPECT_NE(messages[1].dump().find("echo: kept-turn-one alpha"), std::string::npos);
  EXPECT_FALSE(sent["body"].contains("system")) << "instructions are each request's own, as OpenAI's are";

  // A streamed third turn continues the second, and is kept before its end is sent.
  const auto third = stream_responses(
      {{"model", "gemini"}, {"previous_response_id", two["id"]}, {"input", "kept-turn-three"}});
  ASSERT_EQ(third.status, 200);
  const json done = json::parse(third.events.back().data)["response"];
  const auto read_third = http_get(port(), "/v1/responses/" + done["id"].get<std::string>(), key());
  ASSERT_EQ(read_third.status, 200) << read_third.body;
  EXPECT_EQ(output_text(read_third.json()), "echo: kept-turn-three");

  // GET answers the kept object under this call's request_id.
  const auto read = http_get(port(), "/v1/responses/" + id, key());
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.json()["id"], id);
  EXPECT_EQ(output_text(read.json()), "echo: kept-turn-one alpha");
  EXPECT_EQ(read.json()["request_id"], read.header("x-request-id"));

  const auto items =
      http_get(port(), "/v1/responses/" + two["id"].get<std::string>() + "/input_items", key());
  ASSERT_EQ(items.status, 200) << items.body;
  const json list = items.json();
  EXPECT_EQ(list["object"], "list");
  ASSERT_EQ(list["data"].size(), 1u) << "this turn's own input" << items.body;
  EXPECT_EQ(list["data"][0]["type"], "message");
  EXPECT_EQ(list["data"][0]["content"][0], json({{"type", "input_text"}, {"text", "kept-turn-two beta"}}));
  // The Python SDK sends a list as `include[]=...` (brackets), the Node SDK as
  // `include=...`: both are OpenAI's, and both read back the same items.
  for (const std::string query :
       {"?include[]=message.input_image.image_url",
        "?include%5B%5D=message.input_image.image_url&include%5B%5D=file_search_call.results",
        "?include=message.input_image.image_url"}) {
    const auto included =
        http_get(port(), "/v1/responses/" + two["id"].get<std::string>() + "/input_items" + query, key());
    EXPECT_EQ(included.status, 200) << query << ": " << included.body;
    EXPECT_EQ(included.json()["data"], list["data"]) << query;
    const auto whole = http_get(port(), "/v1/responses/" + id + query, key());
    EXPECT_EQ(whole.status, 200) << query << ": " << whole.body;
  }
  EXPECT_EQ(http_get(port(), "/v1/responses/" + id + "/input_items?limit[]=3", key()).status, 400);

  // Another tenant's key finds nothing, and cannot continue it.
  stack().gateway->create_tenant("other");
  const std::string other = stack().gateway->create_key("other").key;
  EXPECT_EQ(http_get(port(), "/v1/responses/" + id, other).status, 404);
  HttpRequest continued;
  continued.path = "/v1/responses";
  continued.body = json({{"model", "gpt"}, {"previous_response_id", id}, {"input", "x"}}).dump();
  continued.headers = {{"Authorization", "Bearer " + other}};
  const auto refused = http_call(port(), continued);
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_EQ(refused.json()["error"]["code"], "previous_response_not_found");
  EXPECT_EQ(refused.json()["error"]["param"], "previous_response_id");

  // DELETE, then it is gone, and a conversation cannot continue from it.
  HttpRequest del;
  del.method = "DELETE";
  del.path = "/v1/responses/" + id;
  del.headers = {{"Authorization", "Bearer " + key()}};
  const auto deleted = http_call(port(), del);
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_EQ(deleted.json()["object"], "response.deleted");
  EXPECT_EQ(deleted.json()["deleted"], true);
  EXPECT_EQ(http_get(port(), "/v1/responses/" + id, key()).status, 404);
  EXPECT_EQ(http_call(port(), del).status, 404);
  const auto after = post_responses({{"model", "gpt"}, {"previous_response_id", two["id"]}, {"input", "x"}});
  EXPECT_EQ(after.status, 400) << "the turn before it was deleted: " << after.body;
}

TEST_F(ResponsesApiTest, StoreFalseIsNotKept) {
  const auto r = post_responses({{"model", "gpt"}, {"input", "not kept"}, {"store", false}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["store"], false);
  EXPECT_EQ(http_get(port(), "/v1/responses/" + r.json()["id"].get<std::string>(), key()).status, 404);
  HttpRequest put;
  put.method = "PUT";
  put.path = "/v1/responses/resp_x";
  put.headers = {{"Authorization", "Bearer " + key()}};
  const auto wrong = http_call(port(), put);
  EXPECT_EQ(wrong.status, 405);
  EXPECT_EQ(wrong.header("allow"), "GET, DELETE");
}

}  // namespace
}  // namespace it
