// The Responses API served natively (ABI 1.10, operation "responses"): the
// request built, whole answers, streams, and the operations a config declares.
#include "chat/body_members.h"
#include "plugin_harness.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace openai_test {
namespace {

constexpr const char* kResponsesBody =
    R"({"model":"svc-alias","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Hi \"there\""}]},)"
    R"({"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"}],)"
    R"("store":false,"stream":false,"reasoning":{"effort":"low"},"include":["reasoning.encrypted_content"],)"
    R"("tools":[{"type":"function","name":"f","parameters":{"type":"object"}}],"request_id":"kept"})";

CallContext responses_call(bool stream = false) {
  CallContext c;
  c.operation = MGW_OPERATION_RESPONSES;
  c.stream = stream;
  return c;
}

// The operations a provider made from `config` declares.
std::vector<std::string> operations_of(std::string_view config) {
  Provider p(config);
  if (hooks().struct_size < MGW_PROVIDER_HOOKS_SIZE_1_10 || hooks().on_provider_operations == nullptr) {
    ADD_FAILURE() << "no on_provider_operations hook";
    return {};
  }
  std::vector<std::string> out;
  mgw_text_sink sink{&out, [](void* self, mgw_str text) {
                       static_cast<std::vector<std::string>*>(self)->emplace_back(mgw::view(text));
                     }};
  EXPECT_EQ(hooks().on_provider_operations(p.get(), &sink), MGW_OK);
  return out;
}

// ---------------------------------------------------------------------------
// Configuration

TEST(ResponsesConfig, DefaultsToResponsesOnOpenAisOwnHostOnly) {
  using V = std::vector<std::string>;
  // Embeddings everywhere: OpenAI-compatible servers serve /embeddings too.
  const V own{"responses", "embeddings"};
  const V other{"embeddings"};
  EXPECT_EQ(operations_of(R"({"base_url":"https://api.openai.com/v1"})"), own);
  EXPECT_EQ(operations_of(R"({"base_url":"https://API.OpenAI.com:443/v1"})"), own);
  EXPECT_EQ(operations_of(R"({"base_url":"https://eu.api.openai.com/v1"})"), own);
  EXPECT_EQ(operations_of(R"({"base_url":"http://localhost:8000/v1"})"), other);
  EXPECT_EQ(operations_of(R"({"base_url":"https://api.openai.com.evil.example/v1"})"), other);
  EXPECT_EQ(operations_of(R"({"base_url":"https://openrouter.ai/api/v1"})"), other);
  EXPECT_EQ(operations_of(R"({"base_url":"http://api.openai.com/v1"})"), other);
  EXPECT_EQ(operations_of(R"({"api_key":"sk-1234567890"})"), other);
  EXPECT_EQ(operations_of(R"({"base_url":"https://api.openai.com/v1","native_operations":null})"), own);
}

TEST(ResponsesConfig, TheConfiguredListWins) {
  using V = std::vector<std::string>;
  EXPECT_EQ(operations_of(R"({"base_url":"https://api.openai.com/v1","native_operations":[]})"), V{});
  EXPECT_EQ(operations_of(R"({"base_url":"http://vllm:8000/v1","native_operations":["responses"]})"),
            V{"responses"});
  EXPECT_EQ(operations_of(R"({"native_operations":["responses","responses"]})"), V{"responses"});
}

TEST(ResponsesConfig, RefusesAnUnknownOperationNamingIt) {
  auto [status, text] = try_config(R"({"native_operations":["responses","messages"]})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_EQ(text,
            "native_operations[1]: 'messages' is not an operation the openai provider serves "
            "natively (responses, embeddings)");
  std::tie(status, text) = try_config(R"({"native_operations":["chat"]})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_NE(text.find("'chat'"), std::string::npos) << text;
}

TEST(ResponsesConfig, RefusesWrongTypes) {
  auto [status, text] = try_config(R"({"native_operations":"responses"})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_EQ(text, "native_operations: must be an array of operation names (responses, embeddings)");
  std::tie(status, text) = try_config(R"({"native_operations":[1]})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_EQ(text, "native_operations[0]: must be a string");
}

// ---------------------------------------------------------------------------
// Requests

TEST(ResponsesRequest, GoesToTheResponsesPathWithOnlyTheModelReplaced) {
  Provider p;
  auto b = build(p, responses_call(), kResponsesBody);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.method, "POST");
  EXPECT_EQ(b->req.path, "/responses");
  EXPECT_EQ(b->req.header("Authorization"), "Bearer " MGW_PROVIDER_TEST_KEY);
  EXPECT_EQ(b->req.header("Content-Type"), "application/json");
  EXPECT_EQ(b->req.header("Accept"), "application/json");
  Json expected = Json::parse(kResponsesBody);
  expected["model"] = "test-model";
  EXPECT_EQ(b->body(), expected);
  EXPECT_EQ(b->body().dump(), expected.dump());  // member order kept
}

TEST(ResponsesRequest, StreamsAsAskedWithoutChatStreamOptions) {
  Provider p;
  const std::string body = R"({"model":"a","input":"Hi","store":false,"stream":true})";
  auto b = build(p, responses_call(true), body);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.header("Accept"), "text/event-stream");
  EXPECT_EQ(b->body(), Json::parse(R"({"model":"test-model","input":"Hi","store":false,"stream":true})"));
}

TEST(ResponsesRequest, SplicingTheMemberIndexMeansTheSame) {
  Provider p;
  const char* const bodies[] = {
      kResponsesBody,
      R"({ "input" : "x" , "model" : "a\"b", "store": false })",
      R"({"input":[],"store":false})",
  };
  for (const char* body : bodies) {
    CallContext indexed = responses_call();
    auto index = modelgw::chat::index_members(body);
    ASSERT_TRUE(index.has_value()) << body;
    indexed.members = *index;
    auto spliced = build(p, indexed, body);
    auto parsed = build(p, responses_call(), body);
    ASSERT_EQ(spliced->status, MGW_OK) << body;
    ASSERT_EQ(parsed->status, MGW_OK) << body;
    EXPECT_EQ(spliced->body(), parsed->body()) << body;
    EXPECT_EQ(spliced->body()["model"], "test-model");
  }
}

TEST(ResponsesRequest, ChatCallsStillGoToChatCompletions) {
  Provider p;
  auto b = build(p, CallContext{}, R"({"model":"a","messages":[{"role":"user","content":"Hi"}]})");
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.path, "/chat/completions");
}

TEST(ResponsesRequest, RefusesAnOperationItDoesNotServe) {
  Provider p;
  CallContext c;
  c.operation = "count_tokens";
  auto b = build(p, c, R"({"model":"a","messages":[]})");
  EXPECT_NE(b->status, MGW_OK);
  EXPECT_EQ(b->error.count("error"), 1);
}

// ---------------------------------------------------------------------------
// Whole responses

TEST(ResponsesResponse, ReportsUsageThenTheObjectWithTheAlias) {
  Provider p;
  Recorder out;
  ASSERT_EQ(p.parse(responses_call(), 200, fixture("responses_completed.json"), out), MGW_OK);
  ASSERT_EQ(out.events, (std::vector<std::string>{"usage", "body"}));
  ASSERT_TRUE(out.rec.usage.has_value());
  EXPECT_EQ(out.rec.usage->struct_size, sizeof(mgw_usage));
  EXPECT_EQ(out.rec.usage->prompt_tokens, 36);
  EXPECT_EQ(out.rec.usage->completion_tokens, 87);
  EXPECT_EQ(out.rec.usage->total_tokens, 123);
  EXPECT_EQ(out.rec.usage->cached_prompt_tokens, 12);
  Json body = Json::parse(out.rec.body);
  Json expected = Json::parse(fixture("responses_completed.json"));
  expected["model"] = "test-alias";
  EXPECT_EQ(body, expected);
}

TEST(ResponsesResponse, AFailedStatusIsAnErrorWithAShortMaskedMessage) {
  Provider p;
  Recorder out;
  ASSERT_EQ(p.parse(responses_call(), 200, fixture("responses_failed.json"), out), MGW_OK);
  ASSERT_EQ(out.events, (std::vector<std::string>{"error"}));
  EXPECT_EQ(out.rec.error->http_status, 502);
  EXPECT_EQ(out.rec.error->code, "provider_failed");
  const std::string& m = out.rec.error->message;
  EXPECT_EQ(m.rfind("upstream provider reported the response failed: The model failed", 0), 0u) << m;
  EXPECT_EQ(m.find("Abcdefghijklmnop"), std::string::npos) << m;
  EXPECT_EQ(m.find("here is some more text"), std::string::npos) << m;
  EXPECT_LT(m.size(), 260u) << m;
}

TEST(ResponsesResponse, AnObjectThatIsNotAResponseIsABadSuccess) {
  Provider p;
  for (const char* body : {R"({"object":"chat.completion","choices":[]})", "[1]", "not json"}) {
    Recorder out;
    p.parse(responses_call(), 200, body, out);
    ASSERT_EQ(out.events, (std::vector<std::string>{"error"})) << body;
    EXPECT_EQ(out.rec.error->code, "provider_failed") << body;
    EXPECT_TRUE(out.rec.error->retryable) << body;
  }
}

TEST(ResponsesResponse, WithoutUsageReportsAndAddsTheEstimate) {
  Provider p;
  Recorder out;
  CallContext c = responses_call();
  c.prompt_tokens = 7;
  const std::string body =
      R"({"id":"resp_1","object":"response","status":"completed","model":"m","output":[)"
      R"({"type":"message","role":"assistant","content":[{"type":"output_text","text":"12345678"}]}]})";
  ASSERT_EQ(p.parse(c, 200, body, out), MGW_OK);
  ASSERT_TRUE(out.rec.usage.has_value());
  EXPECT_EQ(out.rec.usage->prompt_tokens, 7);
  EXPECT_EQ(out.rec.usage->completion_tokens, 2);
  Json j = Json::parse(out.rec.body);
  EXPECT_EQ(j["usage"]["input_tokens"], 7);
  EXPECT_EQ(j["usage"]["output_tokens"], 2);
  EXPECT_EQ(j["usage"]["total_tokens"], 9);
}

TEST(ResponsesResponse, ErrorStatusesUseTheOpenAiMapping) {
  Provider p;
  Recorder chat;
  Recorder responses;
  p.parse(CallContext{}, 429, fixture("error_429_rate_limit.json"), chat, {{"Retry-After", "3"}});
  p.parse(responses_call(), 429, fixture("error_429_rate_limit.json"), responses, {{"Retry-After", "3"}});
  ASSERT_TRUE(responses.rec.error.has_value());
  EXPECT_EQ(responses.rec.error->http_status, 429);
  EXPECT_EQ(responses.rec.error->code, chat.rec.error->code);
  EXPECT_EQ(responses.rec.error->message, chat.rec.error->message);
  EXPECT_EQ(responses.rec.error->retry_after_ms, 3000);
}

// ---------------------------------------------------------------------------
// Streams

struct ResponsesOutcome {
  std::vector<std::string> events;
  std::vector<std::string> chunks;
  std::optional<mgw_usage> usage;
  std::optional<mgw::testing::RecordedError> error;
};

ResponsesOutcome responses_stream(const std::vector<std::string_view>& pieces) {
  Provider p;
  Recorder out;
  run_stream(p, responses_call(true), pieces, out);
  return ResponsesOutcome{out.events, out.rec.chunks, out.rec.usage, out.rec.error};
}

// Whole, byte by byte, split in two at every byte, and in random pieces: the
// same output every time.
ResponsesOutcome responses_stream_every_way(const std::string& transcript) {
  const ResponsesOutcome reference = responses_stream(whole(transcript));
  auto same = [&](const ResponsesOutcome& o, const std::string& how) {
    EXPECT_EQ(o.events, reference.events) << how;
    EXPECT_EQ(o.chunks, reference.chunks) << how;
    EXPECT_EQ(o.error.has_value(), reference.error.has_value()) << how;
    if (o.error && reference.error) {
      EXPECT_EQ(o.error->message, reference.error->message) << how;
    }
    EXPECT_EQ(o.usage.has_value(), reference.usage.has_value()) << how;
  };
  same(responses_stream(byte_by_byte(transcript)), "byte by byte");
  for (std::size_t at = 1; at < transcript.size(); ++at) {
    const std::string_view t = transcript;
    same(responses_stream({t.substr(0, at), t.substr(at)}), "split at " + std::to_string(at));
    if (::testing::Test::HasFailure()) break;
  }
  for (unsigned seed = 1; seed <= 20; ++seed) {
    same(responses_stream(random_pieces(transcript, seed)), "random split, seed " + std::to_string(seed));
  }
  return reference;
}

TEST(ResponsesStream, PassesEveryEventWithTheAliasAndUsageBeforeTheLast) {
  const ResponsesOutcome o = responses_stream_every_way(fixture("responses_stream.sse"));
  ASSERT_FALSE(o.error.has_value()) << o.error->message;
  ASSERT_EQ(o.chunks.size(), 10u);
  std::vector<std::string> expected_events(9, "chunk");
  expected_events.emplace_back("usage");
  expected_events.emplace_back("chunk");
  EXPECT_EQ(o.events, expected_events);
  const auto wire = fixture("responses_stream.sse");
  std::vector<std::string> types;
  std::string text;
  for (const auto& c : o.chunks) {
    const Json j = Json::parse(c);
    types.push_back(j["type"]);
    if (j.contains("response")) {
      EXPECT_EQ(j["response"]["model"], "test-alias");
    }
    if (j["type"] == "response.output_text.delta") text += j["delta"].get<std::string>();
  }
  EXPECT_EQ(types.front(), "response.created");
  EXPECT_EQ(types.back(), "response.completed");
  EXPECT_EQ(text, "Hello wörld ✓");
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->prompt_tokens, 11);
  EXPECT_EQ(o.usage->completion_tokens, 4);
  EXPECT_EQ(o.usage->total_tokens, 15);
  EXPECT_EQ(o.usage->struct_size, sizeof(mgw_usage));
}

TEST(ResponsesStream, IncompleteIsTerminalToo) {
  const ResponsesOutcome o = responses_stream_every_way(fixture("responses_stream_function_call.sse"));
  ASSERT_FALSE(o.error.has_value());
  ASSERT_EQ(o.chunks.size(), 7u);
  EXPECT_EQ(Json::parse(o.chunks.back())["type"], "response.incomplete");
  EXPECT_EQ(Json::parse(o.chunks[3])["delta"], "\"Paris\"}");
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->total_tokens, 49);
}

TEST(ResponsesStream, EndingWithoutATerminalEventFails) {
  const ResponsesOutcome o = responses_stream_every_way(fixture("responses_stream_truncated.sse"));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->http_status, 502);
  EXPECT_EQ(o.error->code, "provider_failed");
  EXPECT_FALSE(o.error->retryable);
  EXPECT_EQ(o.chunks.size(), 9u);
  EXPECT_FALSE(o.usage.has_value());
}

TEST(ResponsesStream, AFailedResponseIsAnError) {
  const ResponsesOutcome o = responses_stream_every_way(fixture("responses_stream_failed.sse"));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->http_status, 502);
  EXPECT_EQ(o.error->code, "provider_failed");
  EXPECT_EQ(o.error->message.find("AbcdEfgh"), std::string::npos) << o.error->message;
  EXPECT_NE(o.error->message.find("The model had an error"), std::string::npos) << o.error->message;
  EXPECT_EQ(o.chunks.size(), 1u);
}

TEST(ResponsesStream, ARateLimitErrorEventIs429) {
  const ResponsesOutcome o = responses_stream_every_way(fixture("responses_stream_error_event.sse"));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->http_status, 429);
  EXPECT_EQ(o.error->code, "rate_limit_exceeded");
  EXPECT_FALSE(o.error->retryable);  // an event already reached the client
  EXPECT_NE(o.error->message.find("Rate limit reached"), std::string::npos);
}

TEST(ResponsesStream, OtherErrorEventsAreProviderFailed) {
  const ResponsesOutcome o = responses_stream(
      whole("event: error\ndata: "
            "{\"type\":\"error\",\"code\":\"server_error\",\"message\":\"boom\",\"param\":null}\n\n"));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->http_status, 502);
  EXPECT_EQ(o.error->code, "provider_failed");
  EXPECT_TRUE(o.error->retryable);
  EXPECT_EQ(o.error->message, "upstream provider failed during the stream: boom");
}

TEST(ResponsesStream, AMalformedEventFails) {
  for (const char* wire :
       {"event: response.created\ndata: {not json\n\n", "data: [1,2]\n\n", "data: {\"no_type\":1}\n\n"}) {
    const ResponsesOutcome o = responses_stream(whole(wire));
    ASSERT_TRUE(o.error.has_value()) << wire;
    EXPECT_EQ(o.error->code, "provider_failed") << wire;
    EXPECT_TRUE(o.chunks.empty()) << wire;
  }
}

TEST(ResponsesStream, NothingAfterTheTerminalEventCounts) {
  std::string wire = fixture("responses_stream_function_call.sse");
  wire += "data: [DONE]\n\ndata: {not json\n\n";
  const ResponsesOutcome o = responses_stream(whole(wire));
  EXPECT_FALSE(o.error.has_value());
  EXPECT_EQ(o.chunks.size(), 7u);
}

TEST(ResponsesStream, WithoutUsageReportsTheEstimate) {
  const std::string wire =
      "event: response.output_text.delta\n"
      "data: {\"type\":\"response.output_text.delta\",\"delta\":\"12345678\"}\n\n"
      "event: response.completed\n"
      "data: "
      "{\"type\":\"response.completed\",\"response\":{\"object\":\"response\",\"status\":\"completed\"}}\n\n";
  const ResponsesOutcome o = responses_stream(whole(wire));
  ASSERT_FALSE(o.error.has_value());
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->completion_tokens, 2);
  const Json last = Json::parse(o.chunks.back());
  EXPECT_EQ(last["response"]["usage"]["output_tokens"], 2);
  EXPECT_EQ(last["response"]["model"], "test-alias");
}

}  // namespace
}  // namespace openai_test
