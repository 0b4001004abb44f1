// POST /v1/responses to a provider that serves the Responses API natively
// (the openai plugin with native_operations: [responses]): the fake upstream
// gets OpenAI's own /v1/responses request, with the whole conversation and
// store: false, and its answer reaches the client under the gateway's id;
// a tier falls back from it to a provider that gets the chat translation;
// a conversation crosses both ways; every stage holds.
#include "harness/checks.h"
#include "harness/stack.h"

namespace it {
namespace {

class ResponsesNativeTest : public SharedStackTest<ResponsesNativeTest> {
 public:
  static GatewayOptions stack_options() {
    GatewayOptions options;
    options.catalog = {
        {"native", "openai-native", "gpt-4o-mini"},
        {"claude", "anthropic", "claude-sonnet-4-5"},
        {"native-500", "openai-native", "gpt-4o-mini+status=500"},
        {"native-cut-2", "openai-native", "gpt-4o-mini+cut_after=2"},
    };
    options.tiers = {{"svc-mixed", {"native-500", "claude"}}};
    return options;
  }

 protected:
  static HttpResponse post(const json& body, const Headers& extra = {}) {
    return post_responses(port(), key(), body, extra);
  }
  static SseResult stream(json body, const Headers& extra = {}) {
    body["stream"] = true;
    return stream_chat(port(), key(), body.dump(), 10000, extra, "/v1/responses");
  }
  // What the fake upstream was sent for the request holding `marker`.
  static json sent(const std::string& marker) { return stack().fake->find_request(marker); }
};

std::string text_of(const json& response) {
  for (const auto& item : response["output"]) {
    if (item["type"] != "message") continue;
    for (const auto& part : item["content"]) {
      if (part["type"] == "output_text") return part["text"].get<std::string>();
    }
  }
  return "<none>";
}

TEST_F(ResponsesNativeTest, TheVendorGetsItsOwnApiAndTheClientTheGatewaysId) {
  const auto r = post({{"model", "native"},
                       {"instructions", "Be brief."},
                       {"input", "native-whole-marker hello"},
                       {"metadata", {{"k", "v"}}}});
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string request_id = r.header("x-request-id");
  const json body = r.json();
  EXPECT_EQ(body["object"], "response");
  EXPECT_EQ(body["id"], "resp_" + request_id.substr(4)) << "the gateway's id, under which it keeps the turn";
  EXPECT_EQ(body["store"], true) << "what the client asked, not what the vendor was told";
  EXPECT_EQ(body["model"], "native");
  EXPECT_EQ(body["request_id"], request_id);
  EXPECT_EQ(text_of(body), "echo: native-whole-marker hello");
  EXPECT_GT(body["usage"]["input_tokens"].get<int>(), 0);

  const json upstream = sent("native-whole-marker");
  ASSERT_TRUE(upstream.is_object());
  EXPECT_EQ(upstream["path"], "/v1/responses");
  EXPECT_EQ(upstream["body"]["model"], "gpt-4o-mini");
  EXPECT_EQ(upstream["body"]["store"], false) << "the gateway keeps the state, the vendor none";
  EXPECT_EQ(upstream["body"]["instructions"], "Be brief.");
  EXPECT_EQ(upstream["body"]["metadata"], json({{"k", "v"}}));
  EXPECT_FALSE(r.has_header("x-dropped-params"));

  const auto rec = stack().usage().wait_for(request_id);
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->provider, "openai-native");
  EXPECT_EQ(rec->prompt_tokens, body["usage"]["input_tokens"].get<std::int64_t>());
  EXPECT_EQ(rec->completion_tokens, body["usage"]["output_tokens"].get<std::int64_t>());
}

TEST_F(ResponsesNativeTest, AStreamIsTheVendorsEventsNumberedAndOwnedByTheGateway) {
  const auto s = stream({{"model", "native"}, {"input", "native-stream-marker one two"}});
  ASSERT_EQ(s.status, 200) << s.body;
  EXPECT_TRUE(s.error.empty()) << s.error;
  const std::string request_id = s.header("x-request-id");
  ASSERT_GE(s.events.size(), 6u) << s.body;
  std::string deltas;
  for (std::size_t i = 0; i < s.events.size(); ++i) {
    const json data = json::parse(s.events[i].data);
    EXPECT_EQ(data["type"], s.events[i].type);
    EXPECT_EQ(data["sequence_number"], static_cast<std::int64_t>(i));
    EXPECT_EQ(data["request_id"], request_id);
    if (data.contains("response")) {
      EXPECT_EQ(data["response"]["id"], "resp_" + request_id.substr(4));
    }
    if (s.events[i].type == "response.output_text.delta") deltas += data["delta"].get<std::string>();
  }
  EXPECT_EQ(s.events.front().type, "response.created");
  EXPECT_EQ(s.events.back().type, "response.completed");
  EXPECT_EQ(deltas, "echo: native-stream-marker one two");
  EXPECT_EQ(sent("native-stream-marker")["body"]["stream"], true);
  // Kept before its end was sent: readable at once.
  const json done = json::parse(s.events.back().data)["response"];
  const auto read = http_get(port(), "/v1/responses/" + done["id"].get<std::string>(), key());
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(text_of(read.json()), "echo: native-stream-marker one two");
}

TEST_F(ResponsesNativeTest, AStreamCutAfterItBeganEndsFailedWithTheErrorEnvelope) {
  const auto s = stream({{"model", "native-cut-2"}, {"input", "native-cut-marker a b c d e f"}});
  ASSERT_EQ(s.status, 200) << s.body;
  ASSERT_GE(s.events.size(), 2u) << s.body;
  const auto& last = s.events.back();
  ASSERT_EQ(last.type, "error") << s.body;
  EXPECT_EQ(json::parse(last.data)["error"]["code"], "provider_failed");
  EXPECT_EQ(s.events[s.events.size() - 2].type, "response.failed");
  for (std::size_t i = 0; i < s.events.size(); ++i)
    EXPECT_EQ(json::parse(s.events[i].data)["sequence_number"], static_cast<std::int64_t>(i));
  // The vendor reported no usage before the cut: the record holds the
  // host's prompt count and an estimate of the text relayed, never zero.
  const auto rec = stack().usage().wait_for(s.header("x-request-id"));
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->error_code, "provider_failed");
  EXPECT_GT(rec->prompt_tokens, 0);
  EXPECT_GT(rec->completion_tokens, 0) << "the deltas relayed before the cut are counted";
}

TEST_F(ResponsesNativeTest, AConversationCrossesBetweenNativeAndTranslatedProviders) {
  const auto one = post({{"model", "native"}, {"input", "cross-turn-one alpha"}});
  ASSERT_EQ(one.status, 200) << one.body;
  // Turn two on Anthropic (translated), continuing the native turn.
  const auto two = post(
      {{"model", "claude"}, {"previous_response_id", one.json()["id"]}, {"input", "cross-turn-two beta"}});
  ASSERT_EQ(two.status, 200) << two.body;
  const json to_claude = sent("cross-turn-two");
  ASSERT_TRUE(to_claude.is_object());
  EXPECT_NE(to_claude["body"].dump().find("echo: cross-turn-one alpha"), std::string::npos)
      << "the native turn's answer is in the conversation: " << to_claude["body"].dump();
  // Turn three back on the native provider: the whole conversation as items.
  const auto three = post(
      {{"model", "native"}, {"previous_response_id", two.json()["id"]}, {"input", "cross-turn-three gamma"}});
  ASSERT_EQ(three.status, 200) << three.body;
  EXPECT_EQ(three.json()["previous_response_id"], two.json()["id"]);
  const json upstream = sent("cross-turn-three");
  ASSERT_TRUE(upstream.is_object());
  EXPECT_EQ(upstream["path"], "/v1/responses");
  const json& body = upstream["body"];
  EXPECT_FALSE(body.contains("previous_response_id")) << "the vendor knows no id of the gateway's";
  EXPECT_EQ(body["store"], false);
  const std::string input = body["input"].dump();
  std::size_t at = 0;
  for (const char* part : {"cross-turn-one alpha", "echo: cross-turn-one alpha", "cross-turn-two beta",
                           "echo: cross-turn-two beta", "cross-turn-three gamma"}) {
    const auto found = input.find(part, at);
    EXPECT_NE(found, std::string::npos) << part << " in order in " << input;
    if (found != std::string::npos) at = found;
  }
}

TEST_F(ResponsesNativeTest, ReasoningGoesBackUntouchedWhenTheVendorSealedIt) {
  const auto one = post({{"model", "native"},
                         {"input", "reasoning-turn-one"},
                         {"reasoning", {{"effort", "low"}}},
                         {"include", json::array({"reasoning.encrypted_content"})}});
  ASSERT_EQ(one.status, 200) << one.body;
  json reasoning;
  const json first = one.json();
  for (const auto& item : first["output"])
    if (item["type"] == "reasoning") reasoning = item;
  ASSERT_TRUE(reasoning.is_object()) << "the fake answers a reasoning item: " << one.body;
  ASSERT_TRUE(reasoning.contains("encrypted_content")) << one.body;
  const auto two = post({{"model", "native"},
                         {"previous_response_id", first["id"]},
                         {"input", "reasoning-turn-two"},
                         {"reasoning", {{"effort", "low"}}}});
  ASSERT_EQ(two.status, 200) << two.body;
  const json upstream = sent("reasoning-turn-two");
  ASSERT_TRUE(upstream.is_object());
  json passed;
  for (const auto& item : upstream["body"]["input"])
    if (item.value("type", "") == "reasoning") passed = item;
  ASSERT_TRUE(passed.is_object()) << upstream["body"].dump();
  EXPECT_EQ(passed["encrypted_content"], reasoning["encrypted_content"]);
  EXPECT_EQ(passed["id"], reasoning["id"]);
}

TEST_F(ResponsesNativeTest, ATierFallsBackFromTheNativeProviderToATranslatedOne) {
  const auto r = post({{"model", "svc-mixed"}, {"input", "fallback-marker hi"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["model"], "claude");
  EXPECT_EQ(text_of(r.json()), "echo: fallback-marker hi");
  EXPECT_EQ(r.json()["id"], "resp_" + r.header("x-request-id").substr(4));
  int native_tries = 0, translated = 0;
  for (const auto& req : stack().fake->requests()) {
    if (req["body"].dump().find("fallback-marker") == std::string::npos) continue;
    native_tries += req["path"] == "/v1/responses";
    translated += req["path"] == "/v1/messages";
  }
  EXPECT_EQ(native_tries, 1);
  EXPECT_EQ(translated, 1);

  // Streamed, the same: nothing was sent before the native attempt failed.
  const auto s = stream({{"model", "svc-mixed"}, {"input", "fallback-stream-marker hi"}});
  ASSERT_EQ(s.status, 200) << s.body;
  EXPECT_EQ(s.events.back().type, "response.completed") << s.body;
  for (std::size_t i = 0; i < s.events.size(); ++i)
    EXPECT_EQ(json::parse(s.events[i].data)["sequence_number"], static_cast<std::int64_t>(i));
}

TEST_F(ResponsesNativeTest, AnIdempotentRetryReplaysTheNativeAnswerByteForByte) {
  const json body = {{"model", "native"}, {"input", "native-idempotent"}};
  const Headers idem = {{"Idempotency-Key", "native-retry-1"}};
  const auto first = post(body, idem);
  ASSERT_EQ(first.status, 200) << first.body;
  const auto again = post(body, idem);
  EXPECT_EQ(again.body, first.body);
  const Headers idem_stream = {{"Idempotency-Key", "native-retry-2"}};
  const auto s1 = stream(body, idem_stream);
  const auto s2 = stream(body, idem_stream);
  ASSERT_EQ(s1.status, 200);
  ASSERT_EQ(s2.status, 200);
  ASSERT_EQ(s2.events.size(), s1.events.size());
  for (std::size_t i = 0; i < s1.events.size(); ++i) {
    EXPECT_EQ(s2.events[i].type, s1.events[i].type);
    EXPECT_EQ(s2.events[i].data, s1.events[i].data);
  }
  int upstream = 0;
  for (const auto& req : stack().fake->requests())
    upstream += req["body"].dump().find("native-idempotent") != std::string::npos;
  EXPECT_EQ(upstream, 2) << "one call per key";
}

}  // namespace
}  // namespace it
