// What a native Messages client sends the fake's Anthropic routes: token
// counts (POST /v1/messages/count_tokens), cache_control blocks and the cache
// usage they report, extended thinking (a signed thinking block, streamed as
// thinking_delta then signature_delta), tool_use / document / image blocks,
// and the anthropic-beta header in the request log. Runs the built binary
// with --api-key over raw sockets (test_support.h); every wait is bounded.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_support.h"

namespace {

using json = nlohmann::json;
using fake_upstream::test::call;
using fake_upstream::test::FakeUpstream;
using fake_upstream::test::parseSse;
using fake_upstream::test::Response;

const std::string kNativeKey = "sk-ant-native-test-key";
const std::vector<std::string> kNativeHeaders = {"x-api-key: " + kNativeKey, "anthropic-version: 2023-06-01"};

int tokensOf(const std::string& text) {
  return 4 + static_cast<int>((text.size() + 3) / 4);
}

// A conversation whose system prompt is marked for caching; `tag` keeps the
// prefix of each test its own (the cache lives as long as the process).
json cachedBody(const std::string& tag, const std::string& question) {
  return {{"model", "claude-cache"},
          {"max_tokens", 64},
          {"system",
           {{{"type", "text"},
             {"text", "Long instructions " + tag},
             {"cache_control", {{"type", "ephemeral"}}}}}},
          {"messages", {{{"role", "user"}, {"content", question}}}}};
}

class AnthropicNativeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      server_ = std::make_unique<FakeUpstream>(FAKE_UPSTREAM_BIN,
                                               std::vector<std::string>{"--api-key", kNativeKey});
    } catch (const std::exception& e) {
      startError_ = e.what();
    }
  }
  static void TearDownTestSuite() { server_.reset(); }
  void SetUp() override { ASSERT_TRUE(server_) << startError_; }
  static int port() { return server_->port(); }

  static Response post(const std::string& path, const json& body,
                       const std::vector<std::string>& headers = kNativeHeaders) {
    return call(port(), "POST", path, body.dump(), headers);
  }

  static std::unique_ptr<FakeUpstream> server_;
  static std::string startError_;
};

std::unique_ptr<FakeUpstream> AnthropicNativeTest::server_;
std::string AnthropicNativeTest::startError_;

TEST_F(AnthropicNativeTest, CountTokensIsThePromptCountOfMessages) {
  json body = {{"model", "claude-count"},
               {"max_tokens", 32},
               {"system", "Count me."},
               {"messages", {{{"role", "user"}, {"content", "How many tokens is this?"}}}}};
  const auto answer = post("/v1/messages", body);
  ASSERT_EQ(answer.status, 200) << answer.body;
  const int prompt = json::parse(answer.body)["usage"]["input_tokens"];
  EXPECT_EQ(prompt, tokensOf("Count me.") + tokensOf("How many tokens is this?"));

  body.erase("max_tokens");
  body["tools"] = json::array({{{"name", "t"}, {"input_schema", {{"type", "object"}}}}});
  body["thinking"] = {{"type", "enabled"}, {"budget_tokens", 2048}};
  const auto count = post("/v1/messages/count_tokens", body);
  ASSERT_EQ(count.status, 200) << count.body;
  EXPECT_EQ(count.header("content-type"), "application/json");
  EXPECT_EQ(count.header("request-id").rfind("req_", 0), 0u);
  EXPECT_EQ(json::parse(count.body), json({{"input_tokens", prompt}}));
}

TEST_F(AnthropicNativeTest, CountTokensRefusesExtraInputs) {
  for (const char* extra : {"max_tokens", "stream", "temperature"}) {
    json body = {{"model", "claude"}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
    body[extra] = extra == std::string("stream") ? json(true) : json(1);
    const auto r = post("/v1/messages/count_tokens", body);
    EXPECT_EQ(r.status, 400) << extra;
    EXPECT_EQ(json::parse(r.body),
              json::parse(R"({"type":"error","error":{"type":"invalid_request_error","message":")" +
                          std::string(extra) + R"(: Extra inputs are not permitted"}})"))
        << extra;
  }
  EXPECT_EQ(post("/v1/messages/count_tokens", json{{"model", "claude"}}).status, 400);
  EXPECT_EQ(post("/v1/messages/count_tokens", json{{"model", "claude"}, {"messages", json::array()}}).status,
            400);
}

TEST_F(AnthropicNativeTest, CountTokensChecksAuthAndVersionAndFaults) {
  const json body = {{"model", "claude"}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
  EXPECT_EQ(post("/v1/messages/count_tokens", body, {"anthropic-version: 2023-06-01"}).status, 401);
  EXPECT_EQ(post("/v1/messages/count_tokens", body, {"x-api-key: " + kNativeKey}).status, 400);
  json failing = body;
  failing["model"] = "claude+status=529";
  EXPECT_EQ(post("/v1/messages/count_tokens", failing).status, 529);
}

TEST_F(AnthropicNativeTest, CacheControlWritesThenReads) {
  const json body = cachedBody("write-then-read", "First question?");
  const int cached = tokensOf("Long instructions write-then-read");
  const int prompt = cached + tokensOf("First question?");
  auto r = post("/v1/messages", body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["usage"], json({{"input_tokens", prompt - cached},
                                                {"cache_creation_input_tokens", cached},
                                                {"cache_read_input_tokens", 0},
                                                {"output_tokens", 3}}));
  // The same prefix with another question: read from the cache.
  r = post("/v1/messages", cachedBody("write-then-read", "Other?"));
  ASSERT_EQ(r.status, 200) << r.body;
  const json usage = json::parse(r.body)["usage"];
  EXPECT_EQ(usage["cache_creation_input_tokens"], 0);
  EXPECT_EQ(usage["cache_read_input_tokens"], cached);
  EXPECT_EQ(usage["input_tokens"], tokensOf("Other?"));
  // count_tokens counts the whole prompt, cached or not.
  json count = cachedBody("write-then-read", "First question?");
  count.erase("max_tokens");
  EXPECT_EQ(json::parse(post("/v1/messages/count_tokens", count).body)["input_tokens"], prompt);
}

TEST_F(AnthropicNativeTest, TheCachedPrefixEndsAtTheLastMarker) {
  json body = {
      {"model", "claude-cache"},
      {"max_tokens", 64},
      {"tools",
       {{{"name", "t"}, {"input_schema", {{"type", "object"}}}, {"cache_control", {{"type", "ephemeral"}}}}}},
      {"system", "Plain system."},
      {"messages",
       {{{"role", "user"},
         {"content",
          {{{"type", "text"},
            {"text", "Marked turn prefix-end"},
            {"cache_control", {{"type", "ephemeral"}}}}}}},
        {{"role", "assistant"}, {"content", "Answer."}},
        {{"role", "user"}, {"content", "Not cached."}}}}};
  const int cached = tokensOf("Plain system.") + tokensOf("Marked turn prefix-end");
  auto r = post("/v1/messages", body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["usage"]["cache_creation_input_tokens"], cached);
  // Streams report it in message_start.
  body["stream"] = true;
  r = post("/v1/messages", body);
  ASSERT_EQ(r.status, 200) << r.body;
  const auto sse = parseSse(r.body);
  ASSERT_FALSE(sse.data.empty());
  const json start = json::parse(sse.data[0]);
  EXPECT_EQ(start["message"]["usage"]["cache_read_input_tokens"], cached);
  EXPECT_EQ(start["message"]["usage"]["cache_creation_input_tokens"], 0);
  // A marker on a tool alone caches what P does not count: nothing.
  json toolsOnly = body;
  toolsOnly.erase("stream");
  toolsOnly["messages"] = {{{"role", "user"}, {"content", "tools only"}}};
  toolsOnly["tools"][0]["name"] = "tools_only_marker";
  r = post("/v1/messages", toolsOnly);
  const json usage = json::parse(r.body)["usage"];
  EXPECT_EQ(usage["cache_creation_input_tokens"], 0);
  EXPECT_EQ(usage["cache_read_input_tokens"], 0);
}

TEST_F(AnthropicNativeTest, ThinkingComesFirstWithASignature) {
  json body = {{"model", "claude-think"},
               {"max_tokens", 4096},
               {"thinking", {{"type", "enabled"}, {"budget_tokens", 1024}}},
               {"messages", {{{"role", "user"}, {"content", "Think"}}}}};
  auto r = post("/v1/messages", body);
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = json::parse(r.body);
  ASSERT_EQ(j["content"].size(), 2u);
  EXPECT_EQ(
      j["content"][0],
      json({{"type", "thinking"}, {"thinking", "Let me think."}, {"signature", "c2lnbmF0dXJlOmZha2U="}}));
  EXPECT_EQ(j["content"][1], json({{"type", "text"}, {"text", "echo: Think"}}));
  EXPECT_EQ(j["usage"]["output_tokens"], 2 + 3);

  body["stream"] = true;
  r = post("/v1/messages", body);
  ASSERT_EQ(r.status, 200) << r.body;
  const auto sse = parseSse(r.body);
  std::vector<std::string> kinds;
  for (const auto& d : sse.data) {
    const json e = json::parse(d);
    std::string kind = e["type"];
    if (e.contains("delta") && e["delta"].contains("type"))
      kind += ":" + e["delta"]["type"].get<std::string>();
    if (e.contains("index")) kind += "@" + std::to_string(e["index"].get<int>());
    kinds.push_back(kind);
  }
  EXPECT_EQ(kinds,
            (std::vector<std::string>{
                "message_start", "content_block_start@0", "content_block_delta:thinking_delta@0",
                "content_block_delta:signature_delta@0", "content_block_stop@0", "content_block_start@1",
                "ping", "content_block_delta:text_delta@1", "content_block_delta:text_delta@1",
                "content_block_stop@1", "message_delta", "message_stop"}));
  EXPECT_EQ(json::parse(sse.data[3])["delta"]["signature"], "c2lnbmF0dXJlOmZha2U=");
  EXPECT_EQ(json::parse(sse.data[10])["usage"]["output_tokens"], 5);
}

TEST_F(AnthropicNativeTest, ThinkingBudgetIsChecked) {
  json body = {{"model", "claude"},
               {"max_tokens", 4096},
               {"thinking", {{"type", "enabled"}, {"budget_tokens", 100}}},
               {"messages", {{{"role", "user"}, {"content", "x"}}}}};
  EXPECT_EQ(post("/v1/messages", body).status, 400);
  body["thinking"]["budget_tokens"] = 8192;
  EXPECT_EQ(post("/v1/messages", body).status, 400);
  body["thinking"] = {{"type", "disabled"}};
  EXPECT_EQ(post("/v1/messages", body).status, 200);
}

TEST_F(AnthropicNativeTest, ToolUseDocumentAndImageBlocksAreAccepted) {
  const json body = {
      {"model", "claude"},
      {"max_tokens", 64},
      {"messages",
       {{{"role", "user"},
         {"content",
          {{{"type", "document"},
            {"source", {{"type", "text"}, {"media_type", "text/plain"}, {"data", "doc"}}}},
           {{"type", "image"}, {"source", {{"type", "url"}, {"url", "https://example.com/a.png"}}}},
           {{"type", "text"}, {"text", "Look"}}}}},
        {{"role", "assistant"},
         {"content", {{{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "f"}, {"input", {{"q", 1}}}}}}},
        {{"role", "user"},
         {"content",
          {{{"type", "tool_result"}, {"tool_use_id", "toolu_1"}, {"content", "ok"}},
           {{"type", "text"}, {"text", "Thanks"}}}}}}}};
  const auto r = post("/v1/messages", body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["content"][0]["type"], "text");
}

TEST_F(AnthropicNativeTest, TheRequestLogKeepsTheBetaHeader) {
  ASSERT_EQ(call(port(), "DELETE", "/_fake/requests").status, 200);
  std::vector<std::string> headers = kNativeHeaders;
  headers.push_back("anthropic-beta: files-api-2025-04-14,context-1m-2025-08-07");
  const json body = {{"model", "claude"}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
  ASSERT_EQ(post("/v1/messages/count_tokens", body, headers).status, 200);
  const auto log = json::parse(call(port(), "GET", "/_fake/requests").body);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0]["path"], "/v1/messages/count_tokens");
  EXPECT_EQ(log[0]["headers"]["anthropic-beta"], "files-api-2025-04-14,context-1m-2025-08-07");
}

}  // namespace
