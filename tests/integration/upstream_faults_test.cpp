// What the client sees when the upstream misbehaves: each fault of the fake
// upstream has its own catalog alias (see standard_catalog()).
#include "harness/checks.h"
#include "harness/stack.h"

#include <future>
#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;

class UpstreamFaultsTest : public SharedStackTest<UpstreamFaultsTest> {
 protected:
  static HttpResponse chat(const std::string& alias, const std::string& text = "fault one two three four") {
    return post_chat(port(), key(), chat_body(alias, text));
  }
};

TEST_F(UpstreamFaultsTest, RateLimitIs429WithRetryAfter) {
  const auto r = chat("rate-limited");
  EXPECT_TRUE(IsApiError(r, 429, "rate_limit_error", "rate_limit_exceeded"));
  EXPECT_EQ(r.header("retry-after"), "7");
  EXPECT_NE(r.json()["error"]["message"].get<std::string>().find('7'), std::string::npos)
      << "the message names the seconds to wait";
}

TEST_F(UpstreamFaultsTest, Upstream500Is502ProviderFailed) {
  EXPECT_TRUE(IsApiError(chat("err-500"), 502, "api_error", "provider_failed"));
}

TEST_F(UpstreamFaultsTest, Upstream503Is502ProviderFailed) {
  EXPECT_TRUE(IsApiError(chat("err-503"), 502, "api_error", "provider_failed"));
}

TEST_F(UpstreamFaultsTest, SlowFirstByteIs504WithinTheTimeout) {
  // timeout_ms is 1500; the fake waits 3000 ms before its status line. The
  // streamed request runs alongside, to keep the suite short.
  auto streamed = std::async(std::launch::async, [] {
    const auto started = Clock::now();
    const auto s = stream_chat(port(), key(), chat_body("slow-first-byte", "t", true));
    return std::make_pair(HttpResponse{s.status, s.headers, s.body}, Clock::now() - started);
  });
  const auto started = Clock::now();
  const auto r = chat("slow-first-byte");
  const auto took = Clock::now() - started;
  EXPECT_TRUE(IsApiError(r, 504, "api_error", "provider_timeout"));
  EXPECT_GE(took, 1400ms);
  EXPECT_LT(took, 2900ms) << "the gateway waited for the upstream instead of timing out";

  const auto [stream_response, stream_took] = streamed.get();
  EXPECT_TRUE(IsApiError(stream_response, 504, "api_error", "provider_timeout")) << "stream";
  EXPECT_LT(stream_took, 2900ms) << "stream";
}

TEST_F(UpstreamFaultsTest, StreamCutMidwayEndsWithErrorEventAndNoDone) {
  const auto r = stream_chat(port(), key(), chat_body("cut-2", "cut one two three four five", true));
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string id = r.header("x-request-id");
  const auto s = summarize(r.events);
  EXPECT_TRUE(s.all_json);
  EXPECT_GE(s.deltas.size(), 1u) << "the chunks before the cut are relayed";
  EXPECT_LE(s.deltas.size(), 2u);
  EXPECT_EQ(s.done_count, 0) << "a cut stream must not end with [DONE]";
  ASSERT_FALSE(r.events.empty());
  const json last = json::parse(r.events.back().data, nullptr, false);
  ASSERT_TRUE(last.is_object() && last.contains("error")) << r.events.back().data;
  EXPECT_EQ(last.size(), 1u) << "the error event is {\"error\":{...}} alone";
  EXPECT_EQ(last["error"]["code"], "provider_failed");
  EXPECT_EQ(last["error"]["type"], "api_error");
  EXPECT_EQ(last["error"]["request_id"], id);
  EXPECT_TRUE(last["error"]["message"].is_string());
  EXPECT_FALSE(s.usage_chunk.has_value()) << "no usage chunk after a failure";
}

TEST_F(UpstreamFaultsTest, CutNonStreamedBodyIs502) {
  EXPECT_TRUE(IsApiError(chat("cut-2"), 502, "api_error", "provider_failed"));
}

TEST_F(UpstreamFaultsTest, SplitStreamGivesTheSameDeltasAndUsage) {
  const std::string text = "split one two three";
  const auto normal = stream_chat(port(), key(), chat_body("gpt-4o-mini", text, true));
  const auto split = stream_chat(port(), key(), chat_body("split", text, true));
  ASSERT_EQ(normal.status, 200);
  ASSERT_EQ(split.status, 200) << split.body;
  const auto a = summarize(normal.events);
  const auto b = summarize(split.events);
  EXPECT_TRUE(b.all_json);
  EXPECT_EQ(b.deltas, a.deltas);
  EXPECT_EQ(b.content, "echo: split one two three");
  ASSERT_TRUE(a.usage_chunk && b.usage_chunk);
  EXPECT_EQ((*b.usage_chunk)["usage"], (*a.usage_chunk)["usage"]);
  EXPECT_EQ(b.chunks.size(), a.chunks.size());
  EXPECT_TRUE(b.done_last);
  EXPECT_EQ(b.done_count, 1);
}

TEST_F(UpstreamFaultsTest, HtmlErrorPageIs502WithoutTheHtml) {
  const auto r = chat("html");
  EXPECT_TRUE(IsApiError(r, 502, "api_error", "provider_failed"));
  EXPECT_EQ(r.body.find("<html"), std::string::npos) << r.body;
  EXPECT_EQ(r.body.find("<title"), std::string::npos) << r.body;
}

TEST_F(UpstreamFaultsTest, GarbageBodyIs502) {
  EXPECT_TRUE(IsApiError(chat("garbage"), 502, "api_error", "provider_failed"));
}

TEST_F(UpstreamFaultsTest, ErrorObjectWithStatus200Is502) {
  EXPECT_TRUE(IsApiError(chat("error200"), 502, "api_error", "provider_failed"));
}

TEST_F(UpstreamFaultsTest, QuotaExhaustedIs502NotRateLimit) {
  const auto r = chat("quota");
  EXPECT_TRUE(IsApiError(r, 502, "api_error", "provider_failed"));
  EXPECT_FALSE(r.has_header("retry-after"));
}

TEST_F(UpstreamFaultsTest, ContextLengthIs422) {
  EXPECT_TRUE(
      IsApiError(chat("context"), 422, "invalid_request_error", "context_length_exceeded", "messages"));
}

TEST_F(UpstreamFaultsTest, UpstreamAuthFailureIs502AndLeaksNoKey) {
  for (const bool stream : {false, true}) {
    const auto s = stream_chat(port(), key(), chat_body("err-401", "who am i", stream));
    HttpResponse r{s.status, s.headers, s.body};
    EXPECT_TRUE(IsApiError(r, 502, "api_error", "provider_failed")) << "stream=" << stream;
    std::string everything = r.body;
    for (const auto& [name, value] : r.headers) everything += name + ": " + value + "\n";
    EXPECT_EQ(everything.find(kProviderKey), std::string::npos) << everything;
    EXPECT_EQ(everything.find("sk-ab***yz"), std::string::npos) << everything;
    EXPECT_EQ(everything.find("sk-ab"), std::string::npos) << everything;
  }
}

TEST_F(UpstreamFaultsTest, StreamWithoutUpstreamUsageStillEndsWithUsageAndDone) {
  const auto r = stream_chat(port(), key(), chat_body("no-usage", "count these words", true));
  ASSERT_EQ(r.status, 200);
  const auto s = summarize(r.events);
  EXPECT_EQ(s.content, "echo: count these words");
  ASSERT_TRUE(s.usage_chunk.has_value()) << "the gateway must add a usage chunk when the vendor sent none";
  const json& usage = (*s.usage_chunk)["usage"];
  for (const char* member : {"prompt_tokens", "completion_tokens", "total_tokens"}) {
    ASSERT_TRUE(usage.contains(member) && usage[member].is_number_integer()) << usage.dump();
    EXPECT_GE(usage[member].get<std::int64_t>(), 0) << usage.dump();
  }
  EXPECT_EQ(usage["total_tokens"].get<std::int64_t>(),
            usage["prompt_tokens"].get<std::int64_t>() + usage["completion_tokens"].get<std::int64_t>());
  EXPECT_GT(usage["completion_tokens"].get<std::int64_t>(), 0) << "an estimate, not nothing";
  ASSERT_GE(r.events.size(), 2u);
  EXPECT_EQ(json::parse(r.events[r.events.size() - 2].data)["choices"], json::array());
  EXPECT_TRUE(s.done_last);
}

TEST_F(UpstreamFaultsTest, ConnectionRefusedIs502) {
  const auto started = Clock::now();
  EXPECT_TRUE(IsApiError(chat("unreachable"), 502, "api_error", "provider_failed"));
  EXPECT_LT(Clock::now() - started, 5s);
  const auto s = stream_chat(port(), key(), chat_body("unreachable", "x", true));
  EXPECT_TRUE(IsApiError(HttpResponse{s.status, s.headers, s.body}, 502, "api_error", "provider_failed"));
}

TEST_F(UpstreamFaultsTest, ErrorsBeforeTheFirstChunkOfAStreamAreJson) {
  struct Case {
    const char* alias;
    int status;
    const char* type;
    const char* code;
  };
  for (const Case& c : {Case{"rate-limited", 429, "rate_limit_error", "rate_limit_exceeded"},
                        Case{"err-500", 502, "api_error", "provider_failed"},
                        Case{"html", 502, "api_error", "provider_failed"},
                        Case{"garbage", 502, "api_error", "provider_failed"},
                        Case{"error200", 502, "api_error", "provider_failed"},
                        Case{"quota", 502, "api_error", "provider_failed"},
                        Case{"context", 422, "invalid_request_error", "context_length_exceeded"}}) {
    const auto s = stream_chat(port(), key(), chat_body(c.alias, "streamed fault", true));
    const HttpResponse r{s.status, s.headers, s.body};
    const std::optional<std::string> param = std::string(c.code) == "context_length_exceeded"
                                                 ? std::optional<std::string>("messages")
                                                 : std::nullopt;
    EXPECT_TRUE(IsApiError(r, c.status, c.type, c.code, param)) << c.alias;
    if (c.status == 429) {
      EXPECT_EQ(r.header("retry-after"), "7");
    }
  }
}

TEST_F(UpstreamFaultsTest, NoStaleUpstreamConnectionAfterTimeoutOrCut) {
  const auto started = Clock::now();
  ASSERT_EQ(chat("late-answer").status, 504);
  ASSERT_EQ(chat("cut-2").status, 502);
  stream_chat(port(), key(), chat_body("cut-2", "a b c d", true));
  // Let the timed-out answer (sent at 2100 ms) arrive on its connection.
  std::this_thread::sleep_until(started + 2500ms);
  for (int i = 0; i < 6; ++i) {
    const std::string text = "after fault " + std::to_string(i);
    const auto r = chat("gpt-4o-mini", text);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.json()["choices"][0]["message"]["content"], "echo: " + text) << "a stale answer was relayed";
  }
}

TEST_F(UpstreamFaultsTest, GatewayStaysHealthyAfterFaults) {
  chat("garbage");
  chat("cut-2");
  const auto r = post_chat(port(), key(), chat_body("gpt-4o-mini", "still fine"));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(http_get(port(), "/healthz").status, 200);
  EXPECT_TRUE(stack().gateway->running());
}

// Runs last in the suite: by then the log holds every fault above (and this
// test makes its own traffic, for when it runs alone).
TEST_F(UpstreamFaultsTest, ZzLogNeverContainsProviderOrClientKey) {
  chat("err-401");
  chat("quota");
  chat("html");
  stream_chat(port(), key(), chat_body("cut-2", "a b c d", true));
  post_chat(port(), key() + "x", chat_body("gpt-4o-mini", "bad key"));
  const auto last = chat("gpt-4o-mini", "the last one");
  ASSERT_EQ(last.status, 200);
  // The access line of the last request shows the log has caught up.
  ASSERT_TRUE(stack().gateway->wait_log(last.header("x-request-id"), 5s)) << stack().gateway->log();
  const std::string log = stack().gateway->log();
  EXPECT_EQ(log.find(kProviderKey), std::string::npos);
  EXPECT_EQ(log.find(std::string(kProviderKey).substr(0, 16)), std::string::npos);
  EXPECT_EQ(log.find(key()), std::string::npos);
  EXPECT_EQ(log.find(key() + "x"), std::string::npos);
}

}  // namespace
}  // namespace it
