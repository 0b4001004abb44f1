// SIGTERM ends the process promptly however the connections arrived: the
// HTTP server must not wait out an idle timeout before it can exit. Calls in
// flight drain for server.shutdown_grace_ms (new ones get 503, /readyz says
// 503); what outlasts it ends with a final `shutting_down` error event and is
// recorded so; a second SIGTERM ends the drain at once; the exit code is 0.
#include "harness/checks.h"
#include "harness/http_client.h"
#include "harness/stack.h"

#include <csignal>
#include <thread>
#include <vector>

namespace it {
namespace {

using namespace std::chrono_literals;

TEST(ShutdownTest, SigtermAfterConcurrentConnectionsExitsWithinThreeSeconds) {
  auto stack = start_stack();
  // Connections that arrive together make the server run several dispatcher
  // threads; every one of them must notice the stop.
  for (int round = 0; round < 3; ++round) {
    std::vector<std::thread> clients;
    for (int i = 0; i < 8; ++i) {
      clients.emplace_back(
          [&stack] { post_chat(stack->port(), stack->key.key, R"({"model":"gpt-4o-mini","messages":[)"); });
    }
    for (auto& t : clients) t.join();
  }
  const auto started = std::chrono::steady_clock::now();
  stack->gateway->send_signal(SIGTERM);
  const auto code = stack->gateway->wait_exit(3s);
  ASSERT_TRUE(code.has_value()) << "modelgw was still running 3 s after SIGTERM with no request in flight";
  EXPECT_EQ(*code, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
}

GatewayOptions draining_options(int grace_ms) {
  GatewayOptions o;
  o.extra_server_yaml = "  shutdown_grace_ms: " + std::to_string(grace_ms) + "\n";
  // About 20 s of stream: longer than any drain here.
  o.catalog.push_back({"endless-stream", "openai", "gpt-4o-mini+chunk_delay_ms=200+words=100"});
  return o;
}

// Reads events until the stream ends (bounded by `max`); the data of each.
std::vector<std::string> read_rest(SseStream& stream, std::size_t max = 1000) {
  std::vector<std::string> data;
  while (data.size() < max) {
    auto event = stream.next();
    if (!event) break;
    data.push_back(event->data);
  }
  return data;
}

TEST(ShutdownTest, StreamWithinTheGracePeriodFinishes) {
  auto stack = start_stack(draining_options(8000));
  SseStream stream(stack->port(), stack->key.key, chat_body("slow-stream", "drain me", true), 10s);
  ASSERT_EQ(stream.status(), 200);
  ASSERT_TRUE(stream.next().has_value()) << stream.error();  // under way
  const std::string id = stream.header("x-request-id");
  stack->gateway->send_signal(SIGTERM);
  const auto rest = read_rest(stream);
  ASSERT_FALSE(rest.empty()) << stream.error();
  EXPECT_EQ(rest.back(), "[DONE]");
  const auto code = stack->gateway->wait_exit(8s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 0);
  const auto record = stack->usage().wait_for(id, 2s);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->error_code, "");
  EXPECT_EQ(record->http_status, 200);
}

TEST(ShutdownTest, StreamPastTheGracePeriodGetsAFinalErrorEventAndIsRecordedAsShuttingDown) {
  auto stack = start_stack(draining_options(1500));
  SseStream stream(stack->port(), stack->key.key, chat_body("endless-stream", "cut me", true), 10s);
  ASSERT_EQ(stream.status(), 200);
  ASSERT_TRUE(stream.next().has_value()) << stream.error();
  const std::string id = stream.header("x-request-id");
  const auto signalled = std::chrono::steady_clock::now();
  stack->gateway->send_signal(SIGTERM);
  ASSERT_TRUE(stack->gateway->wait_log("received SIGTERM", 2s));

  // Draining: a new connection is answered, not dropped: probes as usual
  // (/readyz not ready), everything else 503 `shutting_down`.
  const auto ready = http_get(stack->port(), "/readyz");
  EXPECT_EQ(ready.status, 503) << ready.body;
  const auto refused = post_chat(stack->port(), stack->key.key, chat_body("gpt-4o-mini", "too late"));
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(refused.json()["error"]["code"], "shutting_down") << refused.body;
  EXPECT_EQ(refused.json()["error"]["type"], "api_error") << refused.body;
  EXPECT_EQ(refused.header("connection"), "close");

  const auto rest = read_rest(stream);
  ASSERT_FALSE(rest.empty()) << stream.error();
  const auto last = nlohmann::json::parse(rest.back(), nullptr, false);
  ASSERT_TRUE(last.is_object() && last.contains("error") && last["error"].is_object())
      << "the stream ended without an error event; last: " << rest.back();
  EXPECT_EQ(last["error"].value("code", ""), "shutting_down") << rest.back();
  EXPECT_EQ(last["error"].value("type", ""), "api_error") << rest.back();
  EXPECT_EQ(last["error"].value("request_id", ""), id) << rest.back();
  const auto ended = std::chrono::steady_clock::now() - signalled;
  EXPECT_GT(ended, 1200ms) << "the stream was cut before server.shutdown_grace_ms";
  EXPECT_LT(ended, 6s);

  const auto code = stack->gateway->wait_exit(8s);
  ASSERT_TRUE(code.has_value()) << "still running after the drain";
  EXPECT_EQ(*code, 0);
  const auto record = stack->usage().wait_for(id, 2s);
  ASSERT_TRUE(record.has_value()) << "no usage record for the stream cut at shutdown";
  EXPECT_EQ(record->error_code, "shutting_down");
  EXPECT_GT(record->completion_tokens, 0);
}

TEST(ShutdownTest, SecondSigtermEndsTheDrainAtOnce) {
  auto stack = start_stack(draining_options(30000));
  SseStream stream(stack->port(), stack->key.key, chat_body("endless-stream", "hurry", true), 10s);
  ASSERT_EQ(stream.status(), 200);
  ASSERT_TRUE(stream.next().has_value()) << stream.error();
  stack->gateway->send_signal(SIGTERM);
  ASSERT_TRUE(stack->gateway->wait_log("received SIGTERM", 2s));
  std::this_thread::sleep_for(200ms);
  const auto second = std::chrono::steady_clock::now();
  stack->gateway->send_signal(SIGTERM);
  const auto rest = read_rest(stream);
  ASSERT_FALSE(rest.empty()) << stream.error();
  EXPECT_NE(rest.back().find("shutting_down"), std::string::npos) << rest.back();
  const auto code = stack->gateway->wait_exit(5s);
  ASSERT_TRUE(code.has_value()) << "a second SIGTERM did not end the 30 s drain";
  EXPECT_EQ(*code, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - second, 4s);
  EXPECT_NE(stack->gateway->log().find("received SIGTERM again"), std::string::npos);
}

}  // namespace
}  // namespace it

namespace it {
namespace {

// Streams with an Idempotency-Key outlive a client that leaves (a retry
// will replay them), but not the server's shutdown deadline: past
// server.shutdown_grace_ms each ends like any other stream, with a final
// `shutting_down` event where a client still reads, a usage record, and
// its key freed (the client never got a whole answer), so a retry after the
// restart makes the call again at once instead of waiting on a dead claim.
TEST(ShutdownTest, KeyedStreamsEndAtTheGraceDeadlineAreRecordedAndFreeTheirKeys) {
  auto stack = start_stack(draining_options(1500));
  constexpr int kReading = 6;
  constexpr int kLeft = 4;  // clients that hang up after the first event
  std::vector<std::unique_ptr<SseStream>> streams;
  std::vector<std::string> ids;
  for (int i = 0; i < kReading + kLeft; ++i) {
    streams.push_back(std::make_unique<SseStream>(
        stack->port(), stack->key.key, chat_body("endless-stream", "keyed " + std::to_string(i), true), 10s,
        Headers{{"Idempotency-Key", "drain-key-" + std::to_string(i)}}));
    ASSERT_EQ(streams.back()->status(), 200);
    ASSERT_TRUE(streams.back()->next().has_value()) << streams.back()->error();
    ids.push_back(streams.back()->header("x-request-id"));
  }
  for (int i = kReading; i < kReading + kLeft; ++i) streams[i].reset();  // these clients leave
  const auto signalled = std::chrono::steady_clock::now();
  stack->gateway->send_signal(SIGTERM);
  for (int i = 0; i < kReading; ++i) {
    const auto rest = read_rest(*streams[i]);
    ASSERT_FALSE(rest.empty()) << streams[i]->error();
    const auto last = nlohmann::json::parse(rest.back(), nullptr, false);
    ASSERT_TRUE(last.is_object() && last.contains("error")) << "no final error event; last: " << rest.back();
    EXPECT_EQ(last["error"].value("code", ""), "shutting_down") << rest.back();
  }
  const auto code = stack->gateway->wait_exit(8s);
  ASSERT_TRUE(code.has_value()) << "still running after the drain";
  EXPECT_EQ(*code, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, 6s);
  for (const auto& id : ids) {
    const auto record = stack->usage().wait_for(id, 2s);
    ASSERT_TRUE(record.has_value()) << "no usage record for keyed stream " << id;
    EXPECT_EQ(record->error_code, "shutting_down") << id;
  }

  // After a restart on the same store, a retry is served at once.
  GatewayOptions again = draining_options(1500);
  again.upstream_port = stack->fake->port();
  again.db_path = stack->gateway->db_path();
  Gateway restarted(again);
  restarted.start();
  const auto started = std::chrono::steady_clock::now();
  SseStream retry(restarted.port(), stack->key.key, chat_body("endless-stream", "keyed 0", true), 10s,
                  Headers{{"Idempotency-Key", "drain-key-0"}});
  EXPECT_EQ(retry.status(), 200) << retry.rest();
  EXPECT_EQ(retry.header("idempotent-replayed"), "") << "a cut stream is never replayed";
  EXPECT_TRUE(retry.next().has_value()) << retry.error();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s) << "the retry waited on the dead claim";
}

}  // namespace
}  // namespace it
