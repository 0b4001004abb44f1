// Starts the built fake_upstream binary and checks its OpenAI wire format and
// fault injection over raw sockets (test_support.h), so truncation and
// fragmentation are seen exactly as a client would see them. Every wait is
// bounded; servers are stopped, or killed, by FakeUpstream's destructor.
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Pipe.h>
#include <Poco/Process.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "faults.h"
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

// ---------------------------------------------------------------------------
// Requests and expectations

json chatBody(const std::string& model, const std::string& userText, bool stream = false,
              bool includeUsage = false) {
  json body = {
      {"model", model},
      {"messages",
       {{{"role", "system"}, {"content", "You are a test."}}, {{"role", "user"}, {"content", userText}}}}};
  if (stream) body["stream"] = true;
  if (includeUsage) body["stream_options"] = {{"include_usage", true}};
  return body;
}

Response chat(int port, const json& body, const std::vector<std::string>& headers = {}) {
  return call(port, "POST", "/v1/chat/completions", body.dump(), headers);
}

// The README's formula, computed independently of the server's code.
int expectedPromptTokens(const json& messages) {
  int total = 0;
  for (const auto& m : messages) {
    std::string text;
    if (m["content"].is_string()) {
      text = m["content"];
    } else if (m["content"].is_array()) {
      for (const auto& part : m["content"]) {
        if (part["type"] != "text") continue;
        if (!text.empty()) text += " ";
        text += part["text"].get<std::string>();
      }
    }
    total += 4 + static_cast<int>((text.size() + 3) / 4);
  }
  return total;
}

std::vector<json> parseChunks(const SseStream& sse) {
  std::vector<json> chunks;
  for (const auto& d : sse.data) {
    if (d != "[DONE]") chunks.push_back(json::parse(d));
  }
  return chunks;
}

std::string joinedContent(const std::vector<json>& chunks) {
  std::string text;
  for (const auto& c : chunks) {
    if (!c["choices"].empty() && c["choices"][0]["delta"].contains("content")) {
      text += c["choices"][0]["delta"]["content"].get<std::string>();
    }
  }
  return text;
}

// ---------------------------------------------------------------------------

class FakeUpstreamTest : public ::testing::Test {
 protected:
  // One server for the whole suite; a start failure fails each test cleanly
  // instead of crashing on a null server.
  static void SetUpTestSuite() {
    try {
      server_ = std::make_unique<FakeUpstream>(FAKE_UPSTREAM_BIN);
    } catch (const std::exception& e) {
      startError_ = e.what();
    }
  }
  static void TearDownTestSuite() { server_.reset(); }
  void SetUp() override { ASSERT_TRUE(server_) << startError_; }
  static int port() { return server_->port(); }

  static std::unique_ptr<FakeUpstream> server_;
  static std::string startError_;
};

std::unique_ptr<FakeUpstream> FakeUpstreamTest::server_;
std::string FakeUpstreamTest::startError_;

TEST_F(FakeUpstreamTest, Health) {
  const auto r = call(port(), "GET", "/_fake/health");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body), json({{"status", "ok"}}));
}

TEST_F(FakeUpstreamTest, PlainCompletionShapeAndUsage) {
  const auto body = chatBody("gpt-4o-mini", "  Hello there\n world  ");
  const auto r = chat(port(), body);
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_FALSE(r.chunked);
  EXPECT_TRUE(r.complete) << "Content-Length must match the body";
  const auto j = json::parse(r.body);
  EXPECT_EQ(j["id"].get<std::string>().rfind("chatcmpl-", 0), 0u);
  EXPECT_GT(j["id"].get<std::string>().size(), 20u);
  EXPECT_EQ(j["object"], "chat.completion");
  EXPECT_TRUE(j["created"].is_number_integer());
  EXPECT_EQ(j["model"], "gpt-4o-mini");
  EXPECT_EQ(j["system_fingerprint"], "fp_fake");
  ASSERT_EQ(j["choices"].size(), 1u);
  const auto& choice = j["choices"][0];
  EXPECT_EQ(choice["index"], 0);
  EXPECT_EQ(choice["message"]["role"], "assistant");
  EXPECT_EQ(choice["message"]["content"], "echo: Hello there world");
  EXPECT_TRUE(choice["message"]["refusal"].is_null());
  EXPECT_TRUE(choice["logprobs"].is_null());
  EXPECT_EQ(choice["finish_reason"], "stop");
  const int prompt = expectedPromptTokens(body["messages"]);
  EXPECT_EQ(prompt, (4 + 4) + (4 + 6));  // 15 and 22 bytes of text
  EXPECT_EQ(j["usage"],
            json({{"prompt_tokens", prompt}, {"completion_tokens", 4}, {"total_tokens", prompt + 4}}));
}

TEST_F(FakeUpstreamTest, ContentPartsAreJoinedAndLastUserWins) {
  json body = {{"model", "m"},
               {"messages",
                {{{"role", "user"}, {"content", "first question"}},
                 {{"role", "assistant"}, {"content", nullptr}},
                 {{"role", "user"},
                  {"content",
                   {{{"type", "text"}, {"text", "part one"}},
                    {{"type", "image_url"}, {"image_url", {{"url", "x"}}}},
                    {{"type", "text"}, {"text", "part \"two\""}}}}}}}};
  const auto r = chat(port(), body);
  ASSERT_EQ(r.status, 200);
  const auto j = json::parse(r.body);
  EXPECT_EQ(j["choices"][0]["message"]["content"], "echo: part one part \"two\"");
  EXPECT_EQ(j["usage"]["prompt_tokens"], expectedPromptTokens(body["messages"]));
  EXPECT_EQ(j["usage"]["completion_tokens"], 5);
}

TEST_F(FakeUpstreamTest, KeepAliveServesPipelinedRequests) {
  const auto body = chatBody("gpt-4o-mini", "hi").dump();
  std::string requests;
  for (int i = 0; i < 5; ++i)
    requests += buildRequest("POST", "/v1/chat/completions", body, {}, /*close=*/i == 4);
  const auto raw = rawExchange(port(), requests);
  EXPECT_TRUE(raw.eof);
  size_t count = 0;
  for (size_t pos = 0; (pos = raw.bytes.find("HTTP/1.1 200", pos)) != std::string::npos; ++pos) ++count;
  EXPECT_EQ(count, 5u);
}

TEST_F(FakeUpstreamTest, StreamWithoutUsage) {
  const auto r = chat(port(), chatBody("gpt-4o-mini", "one two three", /*stream=*/true));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "text/event-stream");
  EXPECT_TRUE(r.chunked);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.body.find('\r'), std::string::npos) << "LF line endings unless split";
  const auto sse = parseSse(r.body);
  ASSERT_EQ(sse.data.size(), 1u + 4u + 1u + 1u);  // role, 4 words, finish, [DONE]
  EXPECT_EQ(sse.data.back(), "[DONE]");
  const auto chunks = parseChunks(sse);
  const auto id = chunks[0]["id"];
  for (const auto& c : chunks) {
    EXPECT_EQ(c["id"], id);
    EXPECT_EQ(c["object"], "chat.completion.chunk");
    EXPECT_EQ(c["model"], "gpt-4o-mini");
    EXPECT_EQ(c["system_fingerprint"], "fp_fake");
    EXPECT_FALSE(c.contains("usage"));
  }
  EXPECT_EQ(chunks[0]["choices"][0]["delta"], json({{"role", "assistant"}, {"content", ""}}));
  EXPECT_TRUE(chunks[0]["choices"][0]["finish_reason"].is_null());
  EXPECT_EQ(chunks[1]["choices"][0]["delta"]["content"], "echo: ");
  EXPECT_EQ(chunks[4]["choices"][0]["delta"]["content"], "three");
  EXPECT_EQ(chunks[5]["choices"][0]["delta"], json::object());
  EXPECT_EQ(chunks[5]["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(joinedContent(chunks), "echo: one two three");
}

TEST_F(FakeUpstreamTest, StreamWithIncludeUsage) {
  const auto body = chatBody("gpt-4o-mini", "one two three", true, /*includeUsage=*/true);
  const auto r = chat(port(), body);
  ASSERT_EQ(r.status, 200);
  const auto sse = parseSse(r.body);
  ASSERT_EQ(sse.data.size(), 1u + 4u + 1u + 1u + 1u);  // ... finish, usage, [DONE]
  EXPECT_EQ(sse.data.back(), "[DONE]");
  const auto chunks = parseChunks(sse);
  for (size_t i = 0; i + 1 < chunks.size(); ++i) {
    ASSERT_TRUE(chunks[i].contains("usage")) << i;
    EXPECT_TRUE(chunks[i]["usage"].is_null()) << i;
  }
  const auto& last = chunks.back();
  EXPECT_EQ(last["choices"], json::array());
  const int prompt = expectedPromptTokens(body["messages"]);
  EXPECT_EQ(last["usage"],
            json({{"prompt_tokens", prompt}, {"completion_tokens", 4}, {"total_tokens", prompt + 4}}));

  // no_usage wins over include_usage.
  const auto noUsage = chat(port(), chatBody("gpt-4o-mini+no_usage", "one", true, true));
  for (const auto& c : parseChunks(parseSse(noUsage.body))) {
    EXPECT_FALSE(c.contains("usage"));
  }
}

TEST_F(FakeUpstreamTest, RateLimitWithRetryAfter) {
  auto r = chat(port(), chatBody("gpt-4o-mini+status=429+retry_after=2", "hi"));
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.header("retry-after"), "2");
  auto j = json::parse(r.body);
  EXPECT_EQ(j["error"]["type"], "requests");
  EXPECT_EQ(j["error"]["code"], "rate_limit_exceeded");
  EXPECT_TRUE(j["error"]["param"].is_null());
  EXPECT_EQ(j["error"]["message"].get<std::string>().rfind("Rate limit reached for gpt-4o-mini", 0), 0u);

  r = chat(port(), chatBody("gpt-4o-mini+status=429", "hi", /*stream=*/true));
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.header("retry-after"), "1");
}

TEST_F(FakeUpstreamTest, ErrorDirectives) {
  struct Case {
    std::string model;
    int status;
    std::string type;
    json code;
    json param;
  };
  const Case cases[] = {
      {"m+quota", 429, "insufficient_quota", "insufficient_quota", nullptr},
      {"m+context", 400, "invalid_request_error", "context_length_exceeded", "messages"},
      {"m+status=500", 500, "server_error", nullptr, nullptr},
      {"m+status=404", 404, "invalid_request_error", "model_not_found", nullptr},
      {"m+status=401", 401, "invalid_request_error", "invalid_api_key", nullptr},
      {"m+status=400", 400, "invalid_request_error", nullptr, nullptr},
      {"m+status=503", 503, "server_error", nullptr, nullptr},
      {"m+bogus", 400, "invalid_request_error", nullptr, "model"},
      {"m+status=abc", 400, "invalid_request_error", nullptr, "model"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.model);
    const auto r = chat(port(), chatBody(c.model, "hi"));
    EXPECT_EQ(r.status, c.status);
    EXPECT_EQ(r.header("content-type"), "application/json");
    const auto j = json::parse(r.body);
    EXPECT_EQ(j["error"]["type"], c.type);
    EXPECT_EQ(j["error"]["code"], c.code);
    EXPECT_EQ(j["error"]["param"], c.param);
    EXPECT_FALSE(j["error"]["message"].get<std::string>().empty());
  }
  EXPECT_EQ(json::parse(chat(port(), chatBody("m+status=500", "hi")).body)["error"]["message"],
            "The server had an error while processing your request.");
  EXPECT_NE(chat(port(), chatBody("m+bogus", "hi")).body.find("bogus"), std::string::npos);
  EXPECT_EQ(chat(port(), chatBody("m+quota", "hi")).header("retry-after"), "1");
}

TEST_F(FakeUpstreamTest, NonJsonFaults) {
  auto r = chat(port(), chatBody("m+html", "hi"));
  EXPECT_EQ(r.status, 502);
  EXPECT_EQ(r.header("content-type"), "text/html");
  EXPECT_EQ(r.body,
            "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad "
            "Gateway</h1></center></body></html>");

  r = chat(port(), chatBody("m+garbage", "hi"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_TRUE(json::parse(r.body, nullptr, false).is_discarded());

  r = chat(port(), chatBody("m+error200", "hi", true));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body)["error"]["type"], "server_error");
}

TEST_F(FakeUpstreamTest, ValidationErrors) {
  auto r = call(port(), "POST", "/v1/chat/completions", "{not json");
  EXPECT_EQ(r.status, 400);
  auto j = json::parse(r.body);
  EXPECT_EQ(j["error"]["type"], "invalid_request_error");
  EXPECT_TRUE(j["error"]["code"].is_null());

  r = chat(port(), json{{"model", "m"}});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"]["param"], "messages");

  r = chat(port(), json{{"messages", json::array()}});
  EXPECT_EQ(r.status, 400);

  r = call(port(), "GET", "/v1/nothing");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(json::parse(r.body)["error"]["message"], "Invalid URL (GET /v1/nothing)");
}

TEST_F(FakeUpstreamTest, DelayMsDelaysTheResponse) {
  const auto start = Clock::now();
  const auto r = chat(port(), chatBody("m+delay_ms=300", "hi"));
  EXPECT_EQ(r.status, 200);
  EXPECT_GE(Clock::now() - start, 300ms);
}

TEST_F(FakeUpstreamTest, WordsAndChunkDelay) {
  const auto start = Clock::now();
  const auto r = chat(port(), chatBody("m+words=5+chunk_delay_ms=40", "ignored", true, true));
  const auto elapsed = Clock::now() - start;
  ASSERT_EQ(r.status, 200);
  const auto chunks = parseChunks(parseSse(r.body));
  ASSERT_EQ(chunks.size(), 1u + 5u + 1u + 1u);
  EXPECT_EQ(joinedContent(chunks), "tok0 tok1 tok2 tok3 tok4");
  EXPECT_EQ(chunks.back()["usage"]["completion_tokens"], 5);
  EXPECT_GE(elapsed, 8 * 40ms);  // 9 events, a pause before each but the first
}

TEST_F(FakeUpstreamTest, CutAfterTruncatesTheStream) {
  const auto raw = rawExchange(port(), buildRequest("POST", "/v1/chat/completions",
                                                    chatBody("m+words=10+cut_after=2", "x", true).dump()));
  EXPECT_TRUE(raw.eof) << "the server must close the connection";
  const auto r = parseResponse(raw.bytes);
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.chunked);
  EXPECT_FALSE(r.complete) << "no terminating zero-length chunk";
  const auto sse = parseSse(r.body);
  ASSERT_EQ(sse.data.size(), 3u);  // role + 2 words
  EXPECT_EQ(joinedContent(parseChunks(sse)), "tok0 tok1 ");
  EXPECT_EQ(r.body.find("[DONE]"), std::string::npos);

  // Past the last word: cut before the finish chunk.
  const auto past =
      parseResponse(rawExchange(port(), buildRequest("POST", "/v1/chat/completions",
                                                     chatBody("m+cut_after=99", "a b", true).dump()))
                        .bytes);
  EXPECT_FALSE(past.complete);
  EXPECT_EQ(parseSse(past.body).data.size(), 1u + 3u);

  // Non-streaming: Content-Length promises more than arrives.
  const auto plain = parseResponse(rawExchange(port(), buildRequest("POST", "/v1/chat/completions",
                                                                    chatBody("m+cut_after=10", "x").dump()))
                                       .bytes);
  EXPECT_EQ(plain.status, 200);
  EXPECT_EQ(plain.body.size(), 10u);
  EXPECT_FALSE(plain.complete);
}

TEST_F(FakeUpstreamTest, SplitWritesSmallCrlfFragments) {
  const auto split = chat(port(), chatBody("gpt-4o-mini+split", "alpha beta", true, true));
  ASSERT_EQ(split.status, 200);
  EXPECT_TRUE(split.complete);
  ASSERT_GT(split.chunkSizes.size(), 20u);
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

  // The same events as an unsplit stream, apart from id and created.
  const auto plain = chat(port(), chatBody("gpt-4o-mini", "alpha beta", true, true));
  auto normalise = [](std::vector<json> chunks) {
    for (auto& c : chunks) {
      c.erase("id");
      c.erase("created");
    }
    return chunks;
  };
  const auto splitSse = parseSse(split.body);
  EXPECT_EQ(splitSse.comments, std::vector<std::string>{": keep-alive"});
  EXPECT_EQ(splitSse.data.back(), "[DONE]");
  EXPECT_EQ(normalise(parseChunks(splitSse)), normalise(parseChunks(parseSse(plain.body))));
}

TEST_F(FakeUpstreamTest, CommentsAddCommentBlocks) {
  const auto r = chat(port(), chatBody("gpt-4o-mini+comments", "a b", true));
  ASSERT_EQ(r.status, 200);
  const auto sse = parseSse(r.body);
  ASSERT_EQ(sse.data.size(), 1u + 3u + 1u + 1u);
  EXPECT_EQ(sse.comments.size(), sse.data.size()) << "one comment block before every event";
  EXPECT_EQ(r.body.rfind(": comment\n\ndata: {", 0), 0u);
  EXPECT_EQ(joinedContent(parseChunks(sse)), "echo: a b");
}

TEST_F(FakeUpstreamTest, RequestsLogRecordsApiRequests) {
  ASSERT_EQ(call(port(), "DELETE", "/_fake/requests").status, 200);
  chat(port(), chatBody("gpt-4o-mini+status=500", "logged"),
       {"X-Trace-Id: abc123", "Authorization: Bearer sk-x"});
  call(port(), "POST", "/v1/chat/completions", "plain text body");
  call(port(), "GET", "/v1/models?limit=2");
  call(port(), "GET", "/_fake/health");

  const auto r = call(port(), "GET", "/_fake/requests");
  ASSERT_EQ(r.status, 200);
  const auto log = json::parse(r.body);
  ASSERT_EQ(log.size(), 3u) << log.dump();
  EXPECT_EQ(log[0]["method"], "POST");
  EXPECT_EQ(log[0]["path"], "/v1/chat/completions");
  EXPECT_EQ(log[0]["headers"]["x-trace-id"], "abc123");
  EXPECT_EQ(log[0]["headers"]["authorization"], "Bearer sk-x");
  EXPECT_EQ(log[0]["headers"]["content-type"], "application/json");
  EXPECT_EQ(log[0]["body"]["model"], "gpt-4o-mini+status=500");
  EXPECT_EQ(log[0]["body"]["messages"][1]["content"], "logged");
  EXPECT_EQ(log[1]["body"], "plain text body");
  EXPECT_EQ(log[2]["method"], "GET");
  EXPECT_EQ(log[2]["path"], "/v1/models");
  EXPECT_EQ(log[2]["query"], "limit=2");

  const auto cleared = call(port(), "DELETE", "/_fake/requests");
  EXPECT_EQ(json::parse(cleared.body)["cleared"], 3);
  EXPECT_EQ(json::parse(call(port(), "GET", "/_fake/requests").body), json::array());
}

TEST_F(FakeUpstreamTest, RequestsLogKeepsTheLast100) {
  ASSERT_EQ(call(port(), "DELETE", "/_fake/requests").status, 200);
  // Pipelined on one connection to keep this fast.
  std::string requests;
  for (int i = 0; i < 105; ++i) {
    requests +=
        buildRequest("POST", "/v1/chat/completions", chatBody("m", "n" + std::to_string(i)).dump(), {},
                     /*close=*/i == 104);
  }
  EXPECT_TRUE(rawExchange(port(), requests).eof);
  const auto log = json::parse(call(port(), "GET", "/_fake/requests").body);
  ASSERT_EQ(log.size(), 100u);
  EXPECT_EQ(log.front()["body"]["messages"][1]["content"], "n5");
  EXPECT_EQ(log.back()["body"]["messages"][1]["content"], "n104");
}

// ---------------------------------------------------------------------------
// Servers of their own

TEST(FakeUpstreamApiKey, RejectsMissingOrWrongKey) {
  FakeUpstream server(FAKE_UPSTREAM_BIN, {"--api-key", "sk-test-123"});
  const std::string expected =
      R"({"error":{"message":"Incorrect API key provided: sk-ab***yz. You can find your API key at )"
      R"(https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,)"
      R"("code":"invalid_api_key"}})";
  auto r = chat(server.port(), chatBody("m", "hi"));
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body, expected);
  r = chat(server.port(), chatBody("m", "hi"), {"Authorization: Bearer sk-wrong"});
  EXPECT_EQ(r.status, 401);
  r = chat(server.port(), chatBody("m", "hi"), {"Authorization: Bearer sk-test-123"});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(server.stop(), 0);
}

TEST(FakeUpstreamLifecycle, StopsPromptlyWithOpenStreams) {
  FakeUpstream server(FAKE_UPSTREAM_BIN);
  // A stream that would run for 100 s if left alone.
  Poco::Net::StreamSocket socket;
  socket.connect(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(server.port())));
  const auto request = buildRequest("POST", "/v1/chat/completions",
                                    chatBody("m+words=1000+chunk_delay_ms=100", "x", true).dump());
  socket.sendBytes(request.data(), static_cast<int>(request.size()));
  socket.setReceiveTimeout(Poco::Timespan(5, 0));
  char buffer[1024];
  ASSERT_GT(socket.receiveBytes(buffer, sizeof buffer), 0);

  const auto start = Clock::now();
  EXPECT_EQ(server.stop(), 0);
  EXPECT_LT(Clock::now() - start, 3s);
}

TEST(FakeUpstreamCli, RejectsUnknownOptions) {
  Poco::Pipe out;
  auto handle = Poco::Process::launch(FAKE_UPSTREAM_BIN, {"--bogus", "1"}, nullptr, &out, &out);
  const auto deadline = Clock::now() + 5s;
  int code = -1;
  while (Clock::now() < deadline && (code = handle.tryWait()) == -1) std::this_thread::sleep_for(10ms);
  if (code == -1) Poco::Process::kill(handle);
  EXPECT_EQ(code, 2);
}

// ---------------------------------------------------------------------------
// Directive parsing, without a server

TEST(ParseModel, PlainModelHasNoFaults) {
  const auto parsed = fake_upstream::parseModel("gpt-4o-mini");
  EXPECT_EQ(parsed.model, "gpt-4o-mini");
  EXPECT_TRUE(parsed.error.empty());
  EXPECT_EQ(parsed.faults.status, -1);
  EXPECT_FALSE(parsed.faults.split);
}

TEST(ParseModel, CombinesDirectives) {
  const auto parsed =
      fake_upstream::parseModel("gpt-4o-mini+status=429+retry_after=2+split+words=7+no_usage");
  EXPECT_EQ(parsed.model, "gpt-4o-mini");
  ASSERT_TRUE(parsed.error.empty()) << parsed.error;
  EXPECT_EQ(parsed.faults.status, 429);
  EXPECT_EQ(parsed.faults.retryAfter, 2);
  EXPECT_EQ(parsed.faults.words, 7);
  EXPECT_TRUE(parsed.faults.split);
  EXPECT_TRUE(parsed.faults.noUsage);
}

TEST(ParseModel, CommentsFlag) {
  const auto parsed = fake_upstream::parseModel("claude+comments+split");
  ASSERT_TRUE(parsed.error.empty()) << parsed.error;
  EXPECT_TRUE(parsed.faults.comments);
  EXPECT_TRUE(parsed.faults.split);
  EXPECT_FALSE(fake_upstream::parseModel("m+comments=1").error.empty());
}

TEST(ParseModel, EdgeFaults) {
  const auto parsed =
      fake_upstream::parseModel("m+interim_forever+both_lengths+flood_bytes=4000000+long_line=4194304");
  ASSERT_TRUE(parsed.error.empty()) << parsed.error;
  EXPECT_TRUE(parsed.faults.interimForever);
  EXPECT_TRUE(parsed.faults.bothLengths);
  EXPECT_EQ(parsed.faults.floodBytes, 4000000);
  EXPECT_EQ(parsed.faults.longLine, 4194304);
  EXPECT_FALSE(fake_upstream::parseModel("m+interim_forever=1").error.empty());
  EXPECT_FALSE(fake_upstream::parseModel("m+long_line").error.empty());
}

TEST(ParseModel, RejectsBadDirectives) {
  for (const char* model : {"m+nope", "m+status", "m+status=42", "m+status=4xx", "m+split=1", "m+",
                            "m++split", "m+delay_ms=-5"}) {
    EXPECT_FALSE(fake_upstream::parseModel(model).error.empty()) << model;
  }
  EXPECT_NE(fake_upstream::parseModel("m+nope").error.find("nope"), std::string::npos);
}

}  // namespace
