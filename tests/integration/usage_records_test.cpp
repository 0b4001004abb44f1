// Usage records in the SQLite file: one per authenticated request, with the
// right fields; none for unauthenticated ones; nothing lost at SIGTERM.
#include "harness/checks.h"
#include "harness/stack.h"

#include <csignal>
#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;

class UsageRecordsTest : public SharedStackTest<UsageRecordsTest> {
 protected:
  // The single record of a request (fails the test if there are 0 or 2+).
  static std::optional<UsageRecord> record_of(const std::string& request_id) {
    auto first = stack().usage().wait_for(request_id);
    if (!first) {
      ADD_FAILURE() << "no usage record for " << request_id;
      return std::nullopt;
    }
    const auto all = stack().usage().records_for(request_id);
    EXPECT_EQ(all.size(), 1u) << "one record per request, " << request_id;
    return first;
  }
};

TEST_F(UsageRecordsTest, SuccessfulPlainRequest) {
  const std::int64_t before = unix_ms_now();
  const std::string text = "usage plain one two";
  const auto r = post_chat(port(), key(), chat_body("house-chat", text));
  ASSERT_EQ(r.status, 200);
  const auto rec = record_of(r.header("x-request-id"));
  ASSERT_TRUE(rec);
  const json usage = fake_usage(user_messages(text), fake_reply(user_messages(text)));
  EXPECT_EQ(rec->tenant_id, *stack().usage().tenant_id("acme"));
  EXPECT_EQ(rec->key_id, stack().key.id);
  EXPECT_EQ(rec->alias, "house-chat");
  EXPECT_EQ(rec->provider, "openai");
  EXPECT_EQ(rec->upstream_model, "gpt-4o-mini");
  EXPECT_EQ(rec->prompt_tokens, usage["prompt_tokens"]);
  EXPECT_EQ(rec->completion_tokens, usage["completion_tokens"]);
  EXPECT_EQ(rec->total_tokens, usage["total_tokens"]);
  EXPECT_EQ(rec->http_status, 200);
  EXPECT_EQ(rec->error_code, "");
  EXPECT_EQ(rec->streamed, 0);
  EXPECT_EQ(rec->ttft_us, -1);
  EXPECT_GT(rec->latency_us, 0);
  EXPECT_GE(rec->created_unix_ms, before - 1000);
  EXPECT_LE(rec->created_unix_ms, unix_ms_now() + 1000);
}

TEST_F(UsageRecordsTest, SuccessfulStream) {
  const std::string text = "usage stream three four five";
  const auto r = stream_chat(port(), key(), chat_body("house-chat", text, true));
  ASSERT_EQ(r.status, 200);
  ASSERT_TRUE(summarize(r.events).done_last);
  const auto rec = record_of(r.header("x-request-id"));
  ASSERT_TRUE(rec);
  const json usage = fake_usage(user_messages(text), fake_reply(user_messages(text)));
  EXPECT_EQ(rec->alias, "house-chat");
  EXPECT_EQ(rec->provider, "openai");
  EXPECT_EQ(rec->upstream_model, "gpt-4o-mini");
  EXPECT_EQ(rec->prompt_tokens, usage["prompt_tokens"]);
  EXPECT_EQ(rec->completion_tokens, usage["completion_tokens"]);
  EXPECT_EQ(rec->total_tokens, usage["total_tokens"]);
  EXPECT_EQ(rec->http_status, 200);
  EXPECT_EQ(rec->error_code, "");
  EXPECT_EQ(rec->streamed, 1);
  EXPECT_GE(rec->ttft_us, 0);
  EXPECT_GT(rec->latency_us, 0);
  EXPECT_LE(rec->ttft_us, rec->latency_us);
}

TEST_F(UsageRecordsTest, SlowStreamTimeToFirstTokenIsBeforeTheEnd) {
  const auto r = stream_chat(port(), key(), chat_body("slow-stream", "ttft", true));
  ASSERT_EQ(r.status, 200);
  const auto rec = record_of(r.header("x-request-id"));
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->streamed, 1);
  EXPECT_EQ(rec->upstream_model, "gpt-4o-mini+chunk_delay_ms=300+words=3");
  EXPECT_EQ(rec->completion_tokens, 3);
  EXPECT_GE(rec->latency_us - rec->ttft_us, 900'000)
      << "ttft " << rec->ttft_us << ", latency " << rec->latency_us;
}

TEST_F(UsageRecordsTest, UpstreamError) {
  const auto r = post_chat(port(), key(), chat_body("err-500", "usage upstream error"));
  ASSERT_EQ(r.status, 502);
  const auto rec = record_of(r.header("x-request-id"));
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->alias, "err-500");
  EXPECT_EQ(rec->provider, "openai");
  EXPECT_EQ(rec->upstream_model, "gpt-4o-mini+status=500");
  EXPECT_EQ(rec->http_status, 502);
  EXPECT_EQ(rec->error_code, "provider_failed");
  EXPECT_EQ(rec->total_tokens, 0);
  EXPECT_EQ(rec->streamed, 0);
  EXPECT_EQ(rec->ttft_us, -1);
  EXPECT_GT(rec->latency_us, 0);
}

TEST_F(UsageRecordsTest, StreamCutMidway) {
  const auto r = stream_chat(port(), key(), chat_body("cut-2", "usage cut a b c d", true));
  ASSERT_EQ(r.status, 200);
  const auto rec = record_of(r.header("x-request-id"));
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->http_status, 200);
  EXPECT_EQ(rec->error_code, "provider_failed");
  EXPECT_EQ(rec->streamed, 1);
  EXPECT_GE(rec->ttft_us, 0);
}

TEST_F(UsageRecordsTest, ValidationError) {
  const auto r = post_chat(port(), key(), R"({"model":"gpt-4o-mini"})");
  ASSERT_EQ(r.status, 400);
  const auto rec = record_of(r.header("x-request-id"));
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->tenant_id, *stack().usage().tenant_id("acme"));
  EXPECT_EQ(rec->key_id, stack().key.id);
  EXPECT_EQ(rec->http_status, 400);
  EXPECT_EQ(rec->error_code, "missing_required_field");
  EXPECT_EQ(rec->alias, "");
  EXPECT_EQ(rec->total_tokens, 0);
  EXPECT_EQ(rec->streamed, 0);
  EXPECT_EQ(rec->ttft_us, -1);

  const auto unknown = post_chat(port(), key(), chat_body("no-such-alias", "x"));
  ASSERT_EQ(unknown.status, 404);
  const auto rec404 = record_of(unknown.header("x-request-id"));
  ASSERT_TRUE(rec404);
  EXPECT_EQ(rec404->http_status, 404);
  EXPECT_EQ(rec404->error_code, "model_not_found");
}

TEST_F(UsageRecordsTest, NoRecordForUnauthenticatedRequests) {
  const auto none = post_chat(port(), "", chat_body("gpt-4o-mini", "anonymous"));
  const auto wrong = post_chat(port(), "sk-mgw-nope", chat_body("gpt-4o-mini", "wrong"));
  const auto forbidden = post_chat(port(), stack().gateway->create_key("acme", "usage:read").key,
                                   chat_body("gpt-4o-mini", "forbidden"));
  ASSERT_EQ(none.status, 401);
  ASSERT_EQ(wrong.status, 401);
  ASSERT_EQ(forbidden.status, 403);
  // Records are written in order: once a later one is there, earlier ones would be too.
  const auto later = post_chat(port(), key(), chat_body("gpt-4o-mini", "after"));
  ASSERT_TRUE(stack().usage().wait_for(later.header("x-request-id")));
  for (const auto* r : {&none, &wrong, &forbidden}) {
    EXPECT_TRUE(stack().usage().records_for(r->header("x-request-id")).empty()) << r->header("x-request-id");
  }
}

TEST_F(UsageRecordsTest, ClientThatHangsUpMidStream) {
  std::string id;
  {
    SseStream stream(port(), key(), chat_body("long-stream", "hang up", true));
    ASSERT_EQ(stream.status(), 200);
    id = stream.header("x-request-id");
    ASSERT_TRUE(stream.next().has_value());
  }  // the connection closes here, ~2 s before the stream would end
  const auto rec = stack().usage().wait_for(id, 5s);
  ASSERT_TRUE(rec) << "no usage record for a stream the client abandoned";
  EXPECT_EQ(rec->http_status, 200);
  EXPECT_EQ(rec->error_code, "client_disconnected");
  EXPECT_EQ(rec->streamed, 1);
  EXPECT_GE(rec->ttft_us, 0);
  EXPECT_LT(rec->latency_us, 1'800'000) << "the gateway kept relaying to a client that was gone";
}

// Gateways of their own: these stop them.
class UsageShutdownTest : public ::testing::Test {};

TEST_F(UsageShutdownTest, SigtermFlushesEveryQueuedRecord) {
  GatewayOptions options;
  options.flush_interval_ms = 60000;  // only the shutdown flush can write them
  auto stack = start_stack(options);
  std::vector<std::string> ids;
  for (int i = 0; i < 20; ++i) {
    const auto r = i % 4 == 3 ? post_chat(stack->port(), stack->key.key, R"({"model":"gpt-4o-mini"})")
                              : post_chat(stack->port(), stack->key.key,
                                          chat_body("gpt-4o-mini", "n" + std::to_string(i)));
    ASSERT_TRUE(r.status == 200 || r.status == 400) << r.body;
    ids.push_back(r.header("x-request-id"));
  }
  EXPECT_EQ(stack->usage().count_all(), 0) << "flushed before the interval: this test proves nothing";
  stack->gateway->send_signal(SIGTERM);
  const auto code = stack->gateway->wait_exit(15s);
  ASSERT_TRUE(code.has_value()) << "modelgw did not exit within 15 s of SIGTERM";
  EXPECT_EQ(*code, 0) << stack->gateway->log();
  for (const auto& id : ids) EXPECT_EQ(stack->usage().records_for(id).size(), 1u) << id;
  EXPECT_EQ(stack->usage().count_all(), 20);
}

TEST_F(UsageShutdownTest, InFlightStreamFinishesBeforeExit) {
  auto stack = start_stack();
  // 3 words, 300 ms between events: about 1.8 s of stream after the first event.
  SseStream stream(stack->port(), stack->key.key, chat_body("slow-stream", "inflight", true));
  ASSERT_EQ(stream.status(), 200);
  const std::string id = stream.header("x-request-id");
  std::vector<SseEvent> events;
  auto first = stream.next();
  ASSERT_TRUE(first.has_value()) << stream.error();
  events.push_back(*first);

  stack->gateway->send_signal(SIGTERM);
  for (int i = 0; i < 100; ++i) {
    auto e = stream.next();
    if (!e) break;
    events.push_back(*e);
  }
  EXPECT_TRUE(stream.error().empty()) << stream.error();
  const auto s = summarize(events);
  EXPECT_EQ(s.content, "tok0 tok1 tok2");
  EXPECT_TRUE(s.usage_chunk.has_value());
  EXPECT_TRUE(s.done_last) << "the stream was cut by the shutdown";

  const auto code = stack->gateway->wait_exit(15s);
  ASSERT_TRUE(code.has_value()) << "modelgw did not exit after the stream ended";
  EXPECT_EQ(*code, 0);
  const auto rows = stack->usage().records_for(id);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].http_status, 200);
  EXPECT_EQ(rows[0].error_code, "");
  EXPECT_EQ(rows[0].streamed, 1);
  EXPECT_EQ(rows[0].completion_tokens, 3);
}

}  // namespace
}  // namespace it
