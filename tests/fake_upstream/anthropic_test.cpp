// The Anthropic Messages route of fake_upstream: shape, auth, validation, the
// tool_use answer, stream event order and framing, and every fault. Runs the
// built binary with --api-key over raw sockets (test_support.h); every wait
// is bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_support.h"

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
using fake_upstream::test::buildRequest;
using fake_upstream::test::call;
using fake_upstream::test::FakeUpstream;
using fake_upstream::test::parseResponse;
using fake_upstream::test::parseSse;
using fake_upstream::test::rawExchange;
using fake_upstream::test::Response;
using fake_upstream::test::SseStream;

const std::string kKey = "sk-ant-test-key";
const std::vector<std::string> kHeaders = {"x-api-key: " + kKey, "anthropic-version: 2023-06-01"};

json messagesBody(const std::string& model, const std::string& userText, bool stream = false) {
  json body = {{"model", model},
               {"max_tokens", 256},
               {"system", "You are a test."},
               {"messages", {{{"role", "user"}, {"content", userText}}}}};
  if (stream) body["stream"] = true;
  return body;
}

json withTools(json body) {
  body["tools"] = {
      {{"name", "search"},
       {"description", "Search the web"},
       {"input_schema", {{"type", "object"}, {"properties", {{"query", {{"type", "string"}}}}}}}},
      {{"name", "other"}, {"input_schema", {{"type", "object"}}}}};
  return body;
}

// P for a system prompt plus messages with string content (README formula).
int promptTokens(const std::vector<std::string>& texts) {
  int total = 0;
  for (const auto& t : texts) total += 4 + static_cast<int>((t.size() + 3) / 4);
  return total;
}

// Re-serialises parsed events exactly as the server must have framed them.
std::string framed(const SseStream& sse, const std::string& eol = "\n") {
  std::string out;
  for (size_t i = 0; i < sse.data.size(); ++i) {
    out += "event: " + sse.events[i] + eol + "data: " + sse.data[i] + eol + eol;
  }
  return out;
}

std::string joinedText(const SseStream& sse) {
  std::string text;
  for (size_t i = 0; i < sse.data.size(); ++i) {
    if (sse.events[i] != "content_block_delta") continue;
    const auto delta = json::parse(sse.data[i])["delta"];
    text +=
        delta.contains("text") ? delta["text"].get<std::string>() : delta["partial_json"].get<std::string>();
  }
  return text;
}

class AnthropicTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      server_ =
          std::make_unique<FakeUpstream>(FAKE_UPSTREAM_BIN, std::vector<std::string>{"--api-key", kKey});
    } catch (const std::exception& e) {
      startError_ = e.what();
    }
  }
  static void TearDownTestSuite() { server_.reset(); }
  void SetUp() override { ASSERT_TRUE(server_) << startError_; }
  static int port() { return server_->port(); }

  static Response messages(const json& body, const std::vector<std::string>& headers = kHeaders) {
    return call(port(), "POST", "/v1/messages", body.dump(), headers);
  }
  static Response messagesRaw(const std::string& body) {
    return call(port(), "POST", "/v1/messages", body, kHeaders);
  }
  // For faults that cut the connection: the raw exchange, to see EOF.
  static fake_upstream::test::RawResult exchange(const json& body) {
    return rawExchange(port(), buildRequest("POST", "/v1/messages", body.dump(), kHeaders));
  }

  static std::unique_ptr<FakeUpstream> server_;
  static std::string startError_;
};

std::unique_ptr<FakeUpstream> AnthropicTest::server_;
std::string AnthropicTest::startError_;

TEST_F(AnthropicTest, PlainMessageShapeAndUsage) {
  const auto r = messages(messagesBody("claude-sonnet-4", "  Hello there\n world  "));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.header("request-id").rfind("req_", 0), 0u);
  const auto j = json::parse(r.body);
  EXPECT_EQ(j["id"].get<std::string>().rfind("msg_", 0), 0u);
  EXPECT_EQ(j["id"].get<std::string>().size(), 28u);
  EXPECT_EQ(j["type"], "message");
  EXPECT_EQ(j["role"], "assistant");
  EXPECT_EQ(j["model"], "claude-sonnet-4");
  EXPECT_EQ(j["content"], json::parse(R"([{"type":"text","text":"echo: Hello there world"}])"));
  EXPECT_EQ(j["stop_reason"], "end_turn");
  EXPECT_TRUE(j["stop_sequence"].is_null());
  const int prompt = promptTokens({"You are a test.", "  Hello there\n world  "});
  EXPECT_EQ(j["usage"], json({{"input_tokens", prompt}, {"output_tokens", 4}}));
}

TEST_F(AnthropicTest, ContentBlocksAndSystemBlocks) {
  json body = {{"model", "claude"},
               {"max_tokens", 10},
               {"system", {{{"type", "text"}, {"text", "sys one"}}, {{"type", "text"}, {"text", "sys two"}}}},
               {"messages",
                {{{"role", "user"}, {"content", "first"}},
                 {{"role", "assistant"}, {"content", "answer"}},
                 {{"role", "user"},
                  {"content",
                   {{{"type", "text"}, {"text", "part one"}},
                    {{"type", "image"}, {"source", {{"type", "base64"}, {"data", "xx"}}}},
                    {{"type", "text"}, {"text", "part two"}}}}}}}};
  const auto r = messages(body);
  ASSERT_EQ(r.status, 200) << r.body;
  const auto j = json::parse(r.body);
  EXPECT_EQ(j["content"][0]["text"], "echo: part one part two");
  EXPECT_EQ(j["usage"]["input_tokens"],
            promptTokens({"sys one sys two", "first", "answer", "part one part two"}));
  EXPECT_EQ(j["usage"]["output_tokens"], 5);
}

TEST_F(AnthropicTest, AuthAndVersionHeader) {
  const std::string unauthorized =
      R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})";
  auto r = messages(messagesBody("claude", "hi"), {"anthropic-version: 2023-06-01"});
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(r.body, unauthorized);
  r = messages(messagesBody("claude", "hi"), {"x-api-key: wrong", "anthropic-version: 2023-06-01"});
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body, unauthorized);
  // The OpenAI header is not Anthropic's.
  r = messages(messagesBody("claude", "hi"),
               {"Authorization: Bearer " + kKey, "anthropic-version: 2023-06-01"});
  EXPECT_EQ(r.status, 401);

  r = messages(messagesBody("claude", "hi"), {"x-api-key: " + kKey});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(
      r.body,
      R"({"type":"error","error":{"type":"invalid_request_error","message":"anthropic-version: header is required"}})");

  r = messages(messagesBody("claude", "hi"), {"X-Api-Key: " + kKey, "Anthropic-Version: 2023-06-01"});
  EXPECT_EQ(r.status, 200) << "header names are case-insensitive";
}

TEST_F(AnthropicTest, ValidationErrors) {
  struct Case {
    std::string body;
    std::string message;
  };
  const Case cases[] = {
      {"{not json", "The request body is not valid JSON."},
      {"[1]", "Input should be a valid dictionary"},
      {R"({"max_tokens":5,"messages":[]})", "model: Field required"},
      {R"({"model":5,"max_tokens":5,"messages":[]})", "model: Input should be a valid string"},
      {R"({"model":"c","max_tokens":5})", "messages: Field required"},
      {R"({"model":"c","max_tokens":5,"messages":"hi"})", "messages: Input should be a valid list"},
      {R"({"model":"c","messages":[{"role":"user","content":"hi"}]})", "max_tokens: Field required"},
      {R"({"model":"c","max_tokens":"5","messages":[{"role":"user","content":"hi"}]})",
       "max_tokens: Input should be a valid integer"},
      {R"({"model":"c","max_tokens":5,"stream":"yes","messages":[{"role":"user","content":"hi"}]})",
       "stream: Input should be a valid boolean"},
      {R"({"model":"c","max_tokens":5,"messages":[]})", "messages: at least one message is required"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    const auto r = messagesRaw(c.body);
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(
        json::parse(r.body),
        json({{"type", "error"}, {"error", {{"type", "invalid_request_error"}, {"message", c.message}}}}));
  }
  // The brief's exact body for a missing max_tokens.
  EXPECT_EQ(
      messagesRaw(R"({"model":"c","messages":[{"role":"user","content":"hi"}]})").body,
      R"({"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}})");

  const auto bad = messages(messagesBody("claude+bogus", "hi"));
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(json::parse(bad.body)["error"]["type"], "invalid_request_error");
  EXPECT_NE(bad.body.find("bogus"), std::string::npos);
}

TEST_F(AnthropicTest, ToolUseAnswer) {
  const auto r = messages(withTools(messagesBody("claude", "find  \"cats\"")));
  ASSERT_EQ(r.status, 200) << r.body;
  const auto j = json::parse(r.body);
  EXPECT_EQ(j["stop_reason"], "tool_use");
  EXPECT_EQ(j["content"], json::parse(R"([{"type":"tool_use","id":"toolu_fake_1","name":"search",
                                           "input":{"query":"find  \"cats\""}}])"));
  // Usage is what the text answer would have had.
  EXPECT_EQ(j["usage"]["output_tokens"], 3);

  // After a tool result, or with tool_choice none, the answer is text again.
  json afterTool = withTools(messagesBody("claude", "find cats"));
  afterTool["messages"].push_back({{"role", "assistant"},
                                   {"content",
                                    {{{"type", "tool_use"},
                                      {"id", "toolu_fake_1"},
                                      {"name", "search"},
                                      {"input", {{"query", "find cats"}}}}}}});
  const json toolResult = {{"type", "tool_result"}, {"tool_use_id", "toolu_fake_1"}, {"content", "42 cats"}};
  afterTool["messages"].push_back({{"role", "user"}, {"content", json::array({toolResult})}});
  auto text = json::parse(messages(afterTool).body);
  EXPECT_EQ(text["stop_reason"], "end_turn");
  EXPECT_EQ(text["content"][0]["type"], "text");

  json none = withTools(messagesBody("claude", "find cats"));
  none["tool_choice"] = {{"type", "none"}};
  text = json::parse(messages(none).body);
  EXPECT_EQ(text["content"][0]["text"], "echo: find cats");
}

TEST_F(AnthropicTest, StreamEventOrderAndFraming) {
  const auto r = messages(messagesBody("claude-sonnet-4", "one two three", /*stream=*/true));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type"), "text/event-stream; charset=utf-8");
  EXPECT_TRUE(r.chunked);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.body.find('\r'), std::string::npos) << "LF line endings unless split";
  const auto sse = parseSse(r.body);
  EXPECT_TRUE(sse.comments.empty());
  const std::vector<std::string> expected = {
      "message_start",       "content_block_start", "ping",
      "content_block_delta", "content_block_delta", "content_block_delta",
      "content_block_delta", "content_block_stop",  "message_delta",
      "message_stop"};
  ASSERT_EQ(sse.events, expected);
  EXPECT_EQ(r.body, framed(sse)) << "each event is exactly 'event: <type>\\ndata: <json>\\n\\n'";

  std::vector<json> events;
  for (const auto& d : sse.data) events.push_back(json::parse(d));
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i]["type"], sse.events[i]) << i;
  const int prompt = promptTokens({"You are a test.", "one two three"});
  const auto& start = events[0]["message"];
  EXPECT_EQ(start["id"].get<std::string>().rfind("msg_", 0), 0u);
  EXPECT_EQ(start["type"], "message");
  EXPECT_EQ(start["role"], "assistant");
  EXPECT_EQ(start["model"], "claude-sonnet-4");
  EXPECT_EQ(start["content"], json::array());
  EXPECT_TRUE(start["stop_reason"].is_null());
  EXPECT_EQ(start["usage"]["input_tokens"], prompt);
  EXPECT_EQ(
      events[1],
      json::parse(R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})"));
  EXPECT_EQ(sse.data[2], R"({"type": "ping"})");
  EXPECT_EQ(events[3],
            json::parse(
                R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"echo: "}})"));
  EXPECT_EQ(events[6]["delta"]["text"], "three");
  EXPECT_EQ(joinedText(sse), "echo: one two three");
  EXPECT_EQ(events[7], json::parse(R"({"type":"content_block_stop","index":0})"));
  EXPECT_EQ(events[8],
            json::parse(R"({"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},
                                        "usage":{"output_tokens":4}})"));
  EXPECT_EQ(events[9], json::parse(R"({"type":"message_stop"})"));
}

TEST_F(AnthropicTest, StreamToolUse) {
  const auto r = messages(withTools(messagesBody("claude", "weather in Paris", true)));
  ASSERT_EQ(r.status, 200);
  const auto sse = parseSse(r.body);
  ASSERT_GE(sse.events.size(), 8u);
  const auto start = json::parse(sse.data[1]);
  EXPECT_EQ(start["content_block"],
            json::parse(R"({"type":"tool_use","id":"toolu_fake_1","name":"search","input":{}})"));
  const auto firstDelta = json::parse(sse.data[3]);
  EXPECT_EQ(firstDelta["delta"], json::parse(R"({"type":"input_json_delta","partial_json":""})"));
  size_t deltas = 0;
  for (const auto& e : sse.events) deltas += e == "content_block_delta";
  EXPECT_GT(deltas, 2u) << "the input arrives in several pieces";
  EXPECT_EQ(json::parse(joinedText(sse)), json({{"query", "weather in Paris"}}));
  const auto messageDelta = json::parse(sse.data[sse.data.size() - 2]);
  EXPECT_EQ(messageDelta["delta"]["stop_reason"], "tool_use");
  EXPECT_EQ(sse.events.back(), "message_stop");
}

TEST_F(AnthropicTest, StatusFaults) {
  struct Case {
    std::string model;
    int status;
    std::string type;
  };
  const Case cases[] = {
      {"claude+status=429", 429, "rate_limit_error"},
      {"claude+status=529", 529, "overloaded_error"},
      {"claude+status=500", 500, "api_error"},
      {"claude+status=503", 503, "api_error"},
      {"claude+status=401", 401, "authentication_error"},
      {"claude+status=403", 403, "permission_error"},
      {"claude+status=404", 404, "not_found_error"},
      {"claude+status=413", 413, "request_too_large"},
      {"claude+status=400", 400, "invalid_request_error"},
      {"claude+status=422", 422, "invalid_request_error"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.model);
    for (const bool stream : {false, true}) {
      const auto r = messages(messagesBody(c.model, "hi", stream));
      EXPECT_EQ(r.status, c.status);
      EXPECT_EQ(r.header("content-type"), "application/json") << "errors are JSON even for streams";
      const auto j = json::parse(r.body);
      EXPECT_EQ(j["type"], "error");
      EXPECT_EQ(j["error"]["type"], c.type);
      EXPECT_FALSE(j["error"]["message"].get<std::string>().empty());
    }
  }
  EXPECT_EQ(messages(messagesBody("claude+status=529", "hi")).body,
            R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  EXPECT_EQ(json::parse(messages(messagesBody("claude-x+status=404", "hi")).body)["error"]["message"],
            "model: claude-x");

  auto r = messages(messagesBody("claude+status=429+retry_after=2", "hi"));
  EXPECT_EQ(r.header("retry-after"), "2");
  r = messages(messagesBody("claude+status=429", "hi"));
  EXPECT_EQ(r.header("retry-after"), "1");
  r = messages(messagesBody("claude+status=529", "hi"));
  EXPECT_EQ(r.header("retry-after"), "");
  r = messages(messagesBody("claude+status=529+retry_after=3", "hi"));
  EXPECT_EQ(r.header("retry-after"), "3");
}

TEST_F(AnthropicTest, ContextAndQuota) {
  auto r = messages(messagesBody("claude+context", "hi"));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(
      r.body,
      R"({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 250000 tokens > 200000 maximum"}})");
  r = messages(messagesBody("claude+quota", "hi"));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(
      json::parse(r.body)["error"]["message"].get<std::string>().rfind("Your credit balance is too low", 0),
      0u);
}

TEST_F(AnthropicTest, NonJsonFaults) {
  auto r = messages(messagesBody("claude+html", "hi", true));
  EXPECT_EQ(r.status, 502);
  EXPECT_EQ(r.header("content-type"), "text/html");
  EXPECT_NE(r.body.find("<title>502 Bad Gateway</title>"), std::string::npos);
  r = messages(messagesBody("claude+html+status=503", "hi"));
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find("503 Service Unavailable"), std::string::npos);

  r = messages(messagesBody("claude+garbage", "hi"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_TRUE(json::parse(r.body, nullptr, false).is_discarded());
}

TEST_F(AnthropicTest, Error200) {
  const std::string overloaded =
      R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})";
  auto r = messages(messagesBody("claude+error200", "hi"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, overloaded);

  r = messages(messagesBody("claude+error200", "one two three", true));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "text/event-stream; charset=utf-8");
  EXPECT_TRUE(r.complete);
  const auto sse = parseSse(r.body);
  EXPECT_EQ(sse.events, (std::vector<std::string>{"message_start", "content_block_start", "ping",
                                                  "content_block_delta", "error"}));
  EXPECT_EQ(sse.data.back(), overloaded);
  EXPECT_NE(r.body.find("event: error\ndata: " + overloaded + "\n\n"), std::string::npos);
}

TEST_F(AnthropicTest, CutAfter) {
  auto raw = exchange(messagesBody("claude+words=10+cut_after=2", "x", true));
  EXPECT_TRUE(raw.eof);
  auto r = parseResponse(raw.bytes);
  EXPECT_EQ(r.status, 200);
  EXPECT_FALSE(r.complete) << "no terminating zero-length chunk";
  auto sse = parseSse(r.body);
  EXPECT_EQ(sse.events, (std::vector<std::string>{"message_start", "content_block_start", "ping",
                                                  "content_block_delta", "content_block_delta"}));
  EXPECT_EQ(joinedText(sse), "tok0 tok1 ");

  // Past the last delta: no content_block_stop, message_delta or message_stop.
  r = parseResponse(exchange(messagesBody("claude+cut_after=99", "a b", true)).bytes);
  EXPECT_FALSE(r.complete);
  sse = parseSse(r.body);
  EXPECT_EQ(sse.events.size(), 3u + 3u);
  EXPECT_EQ(sse.events.back(), "content_block_delta");

  // Non-streaming: Content-Length promises more than arrives.
  raw = exchange(messagesBody("claude+cut_after=10", "x"));
  EXPECT_TRUE(raw.eof);
  r = parseResponse(raw.bytes);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body.size(), 10u);
  EXPECT_FALSE(r.complete);
}

TEST_F(AnthropicTest, SplitWritesSmallCrlfFragments) {
  const auto split = messages(messagesBody("claude+split", "alpha beta", true));
  ASSERT_EQ(split.status, 200);
  EXPECT_TRUE(split.complete);
  ASSERT_GT(split.chunkSizes.size(), 40u);
  for (size_t size : split.chunkSizes) {
    EXPECT_GE(size, 1u);
    EXPECT_LE(size, 7u);
  }
  EXPECT_EQ(split.body.rfind(": keep-alive\r\n\r\n", 0), 0u);
  for (size_t i = 0; i < split.body.size(); ++i) {
    if (split.body[i] == '\n') {
      ASSERT_TRUE(i > 0 && split.body[i - 1] == '\r') << "bare LF at " << i;
    }
  }
  const auto splitSse = parseSse(split.body);
  EXPECT_EQ(split.body, ": keep-alive\r\n\r\n" + framed(splitSse, "\r\n"));
  const auto plainSse = parseSse(messages(messagesBody("claude", "alpha beta", true)).body);
  EXPECT_EQ(splitSse.events, plainSse.events);
  EXPECT_EQ(joinedText(splitSse), joinedText(plainSse));
}

TEST_F(AnthropicTest, CommentsAddCommentBlocksAndPings) {
  const auto r = messages(messagesBody("claude+comments", "a b", true));
  ASSERT_EQ(r.status, 200);
  const auto sse = parseSse(r.body);
  EXPECT_EQ(sse.events,
            (std::vector<std::string>{"message_start", "content_block_start", "ping", "content_block_delta",
                                      "ping", "content_block_delta", "ping", "content_block_delta", "ping",
                                      "content_block_stop", "message_delta", "message_stop"}));
  EXPECT_EQ(sse.comments.size(), sse.events.size()) << "one comment block before every event";
  EXPECT_EQ(r.body.rfind(": comment\n\nevent: message_start\n", 0), 0u);
  EXPECT_EQ(joinedText(sse), "echo: a b");
}

TEST_F(AnthropicTest, WordsNoUsageAndDelays) {
  auto start = Clock::now();
  auto r = messages(messagesBody("claude+delay_ms=300", "hi"));
  EXPECT_EQ(r.status, 200);
  EXPECT_GE(Clock::now() - start, 300ms);

  start = Clock::now();
  r = messages(messagesBody("claude+words=3+chunk_delay_ms=40", "ignored", true));
  const auto elapsed = Clock::now() - start;
  const auto sse = parseSse(r.body);
  ASSERT_EQ(sse.events.size(), 3u + 3u + 3u);
  EXPECT_EQ(joinedText(sse), "tok0 tok1 tok2");
  EXPECT_EQ(json::parse(sse.data[7])["usage"]["output_tokens"], 3);
  EXPECT_GE(elapsed, 8 * 40ms);

  r = messages(messagesBody("claude+no_usage", "hi"));
  EXPECT_FALSE(json::parse(r.body).contains("usage"));
  r = messages(messagesBody("claude+no_usage", "hi", true));
  for (const auto& d : parseSse(r.body).data) {
    const auto j = json::parse(d);
    EXPECT_FALSE(j.contains("usage")) << d;
    if (j.contains("message")) {
      EXPECT_FALSE(j["message"].contains("usage")) << d;
    }
  }

  r = messages(messagesBody("claude+words=0", "hi", true));
  EXPECT_EQ(parseSse(r.body).events,
            (std::vector<std::string>{"message_start", "content_block_start", "ping", "content_block_stop",
                                      "message_delta", "message_stop"}));
}

TEST_F(AnthropicTest, RequestLogRecordsHeadersAndBody) {
  ASSERT_EQ(call(port(), "DELETE", "/_fake/requests").status, 200);
  messages(messagesBody("claude+status=500", "logged"),
           {"x-api-key: " + kKey, "anthropic-version: 2023-06-01", "anthropic-beta: tools-2024"});
  const auto log = json::parse(call(port(), "GET", "/_fake/requests").body);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0]["method"], "POST");
  EXPECT_EQ(log[0]["path"], "/v1/messages");
  EXPECT_EQ(log[0]["headers"]["x-api-key"], kKey);
  EXPECT_EQ(log[0]["headers"]["anthropic-version"], "2023-06-01");
  EXPECT_EQ(log[0]["headers"]["anthropic-beta"], "tools-2024");
  EXPECT_EQ(log[0]["body"]["messages"][0]["content"], "logged");
  EXPECT_EQ(log[0]["body"]["max_tokens"], 256);
}

TEST(AnthropicNoKey, AnyKeyWithoutApiKeyOption) {
  FakeUpstream server(FAKE_UPSTREAM_BIN);
  const auto r = call(server.port(), "POST", "/v1/messages", messagesBody("claude", "hi").dump(),
                      {"anthropic-version: 2023-06-01"});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(server.stop(), 0);
}

}  // namespace
