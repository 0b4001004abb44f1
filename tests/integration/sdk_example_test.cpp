// The SDK's C example plugin (sdk/examples/echo_provider), built out of tree
// against the installed SDK alone (see CMakeLists.txt), loaded by the real
// gateway as provider "echo" by its path, and serving chat through the fake
// upstream's OpenAI routes: what a vendor's plugin must do, end to end.
#include "harness/checks.h"
#include "harness/stack.h"

#include <sstream>

namespace it {
namespace {

std::vector<CatalogEntry> echo_catalog() {
  return {
      {"echo-chat", "echo", "gpt-4o-mini"},
      {"echo-split", "echo", "gpt-4o-mini+split"},  // SSE in fragments of 1 to 7 bytes, CRLF
      {"echo-no-usage", "echo", "gpt-4o-mini+no_usage"},
      {"echo-401", "echo", "gpt-4o-mini+status=401"},
      {"echo-cut", "echo", "gpt-4o-mini+cut_after=2"},
  };
}

std::string echo_provider_yaml(int fake_port) {
  std::ostringstream y;
  y << "  echo:\n"
    << "    plugin: \"" << ECHO_PROVIDER_PLUGIN << "\"\n"
    << "    base_url: \"http://127.0.0.1:" << fake_port << "/v1\"\n"
    << "    api_key: \"${FAKE_KEY}\"\n";
  return y.str();
}

class SdkExampleTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    try {
      auto stack = std::make_unique<Stack>();
      stack->fake = std::make_unique<FakeUpstream>(kProviderKey);
      GatewayOptions options;
      options.upstream_port = stack->fake->port();
      options.catalog = echo_catalog();
      options.extra_providers_yaml = echo_provider_yaml(stack->fake->port());
      stack->gateway = std::make_unique<Gateway>(std::move(options));
      stack->gateway->create_tenant("acme");
      stack->key = stack->gateway->create_key("acme");
      stack->gateway->start();
      stack_ = std::move(stack);
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() { stack_.reset(); }

 protected:
  void SetUp() override { ASSERT_NE(stack_, nullptr) << "suite setup failed: " << setup_error_; }

  static int port() { return stack_->port(); }
  static const std::string& key() { return stack_->key.key; }

  // A streamed answer that must be a complete, well-formed relay through the
  // plugin: every chunk with the request id first and the alias as model,
  // the usage chunk last before exactly one [DONE].
  static StreamSummary expect_clean_stream(const SseResult& r, const std::string& alias) {
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.header("content-type").rfind("text/event-stream", 0), 0u) << r.header("content-type");
    EXPECT_TRUE(r.error.empty()) << r.error;
    const std::string id = r.header("x-request-id");
    EXPECT_TRUE(is_request_id(id)) << id;
    StreamSummary s = summarize(r.events);
    EXPECT_TRUE(s.all_json) << "every data event but [DONE] must be JSON";
    EXPECT_FALSE(s.error.has_value()) << s.error->dump();
    for (std::size_t i = 0; i < s.chunks.size(); ++i) {
      EXPECT_EQ(s.raw[i].rfind("{\"request_id\":\"" + id + "\"", 0), 0u) << s.raw[i];
      EXPECT_EQ(s.chunks[i]["object"], "chat.completion.chunk") << s.raw[i];
      EXPECT_EQ(s.chunks[i]["model"], alias) << s.raw[i];
    }
    EXPECT_EQ(s.done_count, 1) << "the plugin must not forward the vendor's [DONE]";
    EXPECT_TRUE(s.done_last);
    if (r.events.size() >= 2) {
      const json last = json::parse(r.events[r.events.size() - 2].data, nullptr, false);
      EXPECT_EQ(last["choices"], json::array()) << "the usage chunk comes last before [DONE]";
      EXPECT_TRUE(last["usage"].is_object()) << r.events[r.events.size() - 2].data;
    }
    return s;
  }

  static inline std::unique_ptr<Stack> stack_;
  static inline std::string setup_error_;
};

TEST_F(SdkExampleTest, PlainChatComesBackWithAliasContentUsageAndRequestId) {
  const json messages = json::array({{{"role", "system"}, {"content", "You are a test."}},
                                     {{"role", "user"}, {"content", "sdk-plain-1  Hello\n there"}}});
  const json request = {{"model", "echo-chat"}, {"messages", messages}, {"temperature", 0.25}};
  const auto r = post_chat(port(), key(), request.dump());

  ASSERT_EQ(r.status, 200) << r.body;
  const std::string id = r.header("x-request-id");
  EXPECT_TRUE(is_request_id(id)) << id;
  EXPECT_EQ(r.body.rfind("{\"request_id\":\"" + id + "\"", 0), 0u) << r.body;
  const json body = r.json();
  ASSERT_TRUE(body.is_object()) << r.body;
  EXPECT_EQ(body["object"], "chat.completion");
  EXPECT_EQ(body["model"], "echo-chat") << "model must be the catalog alias";
  ASSERT_TRUE(body["choices"].is_array() && body["choices"].size() == 1) << r.body;
  EXPECT_EQ(body["choices"][0]["message"]["content"], "echo: sdk-plain-1 Hello there");
  EXPECT_EQ(body["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(body["usage"], fake_usage(messages, "echo: sdk-plain-1 Hello there")) << r.body;

  // What the plugin sent upstream: the client's body with the catalog's
  // model, to /chat/completions under base_url, with the configured key.
  const json sent = stack_->fake->find_request("sdk-plain-1");
  ASSERT_TRUE(sent.is_object()) << "the fake upstream never saw the request";
  EXPECT_EQ(sent["method"], "POST");
  EXPECT_EQ(sent["path"], "/v1/chat/completions");
  EXPECT_EQ(sent["headers"]["authorization"], std::string("Bearer ") + kProviderKey);
  EXPECT_EQ(sent["body"]["model"], "gpt-4o-mini");
  EXPECT_EQ(sent["body"]["messages"], messages);
  EXPECT_EQ(sent["body"]["temperature"], 0.25);
  EXPECT_FALSE(sent["body"].contains("request_id"));
  EXPECT_FALSE(sent["body"].contains("stream_options"));
}

TEST_F(SdkExampleTest, StreamedChatRelaysChunksThenUsageThenOneDone) {
  const std::string text = "sdk-stream-1 the quick  brown fox";
  const auto r = stream_chat(port(), key(), chat_body("echo-chat", text, true));
  const auto s = expect_clean_stream(r, "echo-chat");
  EXPECT_EQ(s.content, "echo: sdk-stream-1 the quick brown fox");
  EXPECT_GE(s.deltas.size(), 5u) << "one delta per word, as the vendor sent them";
  ASSERT_TRUE(s.usage_chunk.has_value()) << "no final chunk with choices [] and usage";
  EXPECT_EQ((*s.usage_chunk)["usage"], fake_usage(user_messages(text), s.content));
  // Exactly one usage chunk: the vendor's own is not forwarded beside it.
  int usage_chunks = 0;
  for (const auto& chunk : s.chunks) usage_chunks += chunk.contains("usage") ? 1 : 0;
  EXPECT_EQ(usage_chunks, 1);

  const json sent = stack_->fake->find_request("sdk-stream-1");
  ASSERT_TRUE(sent.is_object()) << "the fake upstream never saw the request";
  EXPECT_EQ(sent["body"]["stream"], true);
  EXPECT_EQ(sent["body"]["stream_options"]["include_usage"], true) << sent["body"].dump();
}

TEST_F(SdkExampleTest, StreamSplitIntoTinyFragmentsDecodesTheSame) {
  const std::string text = "sdk-split-1 every byte boundary counts";
  const auto r = stream_chat(port(), key(), chat_body("echo-split", text, true));
  const auto s = expect_clean_stream(r, "echo-split");
  EXPECT_EQ(s.content, "echo: sdk-split-1 every byte boundary counts");
  ASSERT_TRUE(s.usage_chunk.has_value());
  EXPECT_EQ((*s.usage_chunk)["usage"], fake_usage(user_messages(text), s.content));
}

TEST_F(SdkExampleTest, StreamWithoutVendorUsageStillEndsWithAUsageChunk) {
  const auto r = stream_chat(port(), key(), chat_body("echo-no-usage", "sdk-no-usage-1 hello", true));
  const auto s = expect_clean_stream(r, "echo-no-usage");
  EXPECT_EQ(s.content, "echo: sdk-no-usage-1 hello");
  ASSERT_TRUE(s.usage_chunk.has_value());
  const json& usage = (*s.usage_chunk)["usage"];
  // The plugin's estimate: about four bytes of generated text per token.
  EXPECT_EQ(usage["completion_tokens"], 7) << usage.dump();  // ceil(26 / 4)
  EXPECT_EQ(usage["total_tokens"].get<int64_t>(),
            usage["prompt_tokens"].get<int64_t>() + usage["completion_tokens"].get<int64_t>());
  // The record keeps what the plugin reported, except a prompt count of 0
  // (no vendor count, and the host had not counted to route): the host
  // counts the prompt itself, as for a whole body.
  const auto record = stack_->usage().wait_for(r.header("x-request-id"));
  ASSERT_TRUE(record.has_value()) << "no usage record";
  EXPECT_EQ(record->alias, "echo-no-usage");
  EXPECT_EQ(record->provider, "echo");
  if (usage["prompt_tokens"].get<int64_t>() > 0) {
    EXPECT_EQ(record->prompt_tokens, usage["prompt_tokens"].get<int64_t>());
  } else {
    EXPECT_GT(record->prompt_tokens, 0) << "the host counts a prompt nobody counted";
  }
  EXPECT_EQ(record->completion_tokens, 7);
}

TEST_F(SdkExampleTest, VendorAuthFailureIsAProviderFailureWithoutTheVendorsText) {
  const auto r = post_chat(port(), key(), chat_body("echo-401", "sdk-401"));
  EXPECT_TRUE(IsApiError(r, 502, "api_error", "provider_failed")) << r.body;
  EXPECT_EQ(r.body.find("sk-ab***yz"), std::string::npos) << "the vendor's 401 text echoes part of the key";
}

TEST_F(SdkExampleTest, StreamCutShortIsReportedNotEndedCleanly) {
  const auto r = stream_chat(port(), key(), chat_body("echo-cut", "sdk-cut one two three four", true));
  ASSERT_EQ(r.status, 200) << r.body;
  const auto s = summarize(r.events);
  EXPECT_EQ(s.content, "echo: sdk-cut ") << "the chunks before the cut are relayed";
  EXPECT_FALSE(s.usage_chunk.has_value());
  EXPECT_EQ(s.done_count, 0) << "a cut stream must not end with [DONE]";
  ASSERT_TRUE(s.error.has_value()) << "a truncated stream must end with an error event";
  EXPECT_EQ((*s.error)["error"]["code"], "provider_failed") << s.error->dump();
}

TEST_F(SdkExampleTest, ProviderKeyNeverReachesTheLog) {
  // Every test above ran through the plugin; its log lines are the gateway's.
  const std::string log = stack_->gateway->log();
  EXPECT_NE(log.find("echo provider ready"), std::string::npos) << "the plugin's start-up line is missing";
  EXPECT_EQ(log.find(kProviderKey), std::string::npos);
}

}  // namespace
}  // namespace it
