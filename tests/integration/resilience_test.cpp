// Upstream resilience (spec 7.4): which failures are retried, how often, how
// long the gateway waits, the retry budget, the answer it gives up with, and
// that nothing is retried once a byte reached the client.
#include "harness/checks.h"
#include "harness/http_client.h"
#include "harness/raw_connection.h"
#include "harness/stack.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <sstream>
#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

GatewayOptions with_retries(int attempts, int base_ms = 20, int budget_ms = 5000) {
  GatewayOptions o;
  o.retry_max_attempts = attempts;
  o.retry_base_ms = base_ms;
  o.retry_budget_ms = budget_ms;
  o.catalog.push_back({"err-500-once", "openai", "gpt-4o-mini+status=500"});
  o.catalog.push_back({"rate-limited-1s", "openai", "gpt-4o-mini+status=429+retry_after=1"});
  o.catalog.push_back({"slow-1s", "openai", "gpt-4o-mini+delay_ms=1000"});
  return o;
}

// The access line of request `id` (the request's one log line), once written.
// Other lines name the request too, and lines reach the log in batches:
// polled (bounded) until the access line is there.
nlohmann::json access_line_of(Gateway& gateway, const std::string& id) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  do {
    std::istringstream lines(gateway.log());
    std::string line;
    while (std::getline(lines, line)) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_object() && j.value("log", "") == "access" && j.value("request_id", "") == id) return j;
    }
    std::this_thread::sleep_for(20ms);
  } while (std::chrono::steady_clock::now() < deadline);
  return nlohmann::json::object();
}

long long ms_since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

class ResilienceTest : public ::testing::Test {};

TEST_F(ResilienceTest, A500IsRetriedUpToMaxAttemptsThenAnswered502) {
  auto stack = start_stack(with_retries(3));
  const auto r = post_chat(stack->port(), stack->key.key, chat_body("err-500", "retry-500-marker"));
  EXPECT_TRUE(IsApiError(r, 502, "api_error", "provider_failed"));
  EXPECT_EQ(upstream_calls(*stack, "retry-500-marker"), 3);
  const auto rec = stack->usage().wait_for(r.header("x-request-id"));
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->http_status, 502);
  EXPECT_EQ(rec->error_code, "provider_failed");
  EXPECT_EQ(access_line_of(*stack->gateway, r.header("x-request-id")).value("attempts", 0), 3);
}

TEST_F(ResilienceTest, A503And504AndConnectionFailuresAreRetried) {
  auto stack = start_stack(with_retries(2));
  post_chat(stack->port(), stack->key.key, chat_body("err-503", "retry-503-marker"));
  EXPECT_EQ(upstream_calls(*stack, "retry-503-marker"), 2);
  const auto r = post_chat(stack->port(), stack->key.key, chat_body("unreachable", "retry-conn"));
  EXPECT_TRUE(IsApiError(r, 502, "api_error", "provider_failed"));
  const auto rec = stack->usage().wait_for(r.header("x-request-id"));
  ASSERT_TRUE(rec);
  const auto line = access_line_of(*stack->gateway, r.header("x-request-id"));
  EXPECT_EQ(line.value("tenant", ""), "acme") << line;
  EXPECT_EQ(line.value("alias", ""), "unreachable") << line;
  EXPECT_EQ(line.value("status", 0), 502) << line;
  EXPECT_EQ(line.value("error", ""), "provider_failed") << line;
  EXPECT_EQ(line.value("tokens", -1), 0) << line;
  EXPECT_EQ(line.value("attempts", 0), 2) << line;
}

TEST_F(ResilienceTest, ClientErrorsAndVendorAuthFailuresAreNotRetried) {
  auto stack = start_stack(with_retries(5));
  post_chat(stack->port(), stack->key.key, chat_body("err-401", "no-retry-401"));
  EXPECT_EQ(upstream_calls(*stack, "no-retry-401"), 1);
  post_chat(stack->port(), stack->key.key, chat_body("context", "no-retry-context"));
  EXPECT_EQ(upstream_calls(*stack, "no-retry-context"), 1);
  post_chat(stack->port(), stack->key.key, chat_body("quota", "no-retry-quota"));
  EXPECT_EQ(upstream_calls(*stack, "no-retry-quota"), 1);
}

TEST_F(ResilienceTest, BackoffDoublesFromTheBaseWithAtMostAQuarterOfJitter) {
  auto stack = start_stack(with_retries(3, /*base_ms=*/150));
  const auto t = Clock::now();
  post_chat(stack->port(), stack->key.key, chat_body("err-503", "backoff-marker"));
  const auto took = ms_since(t);
  EXPECT_EQ(upstream_calls(*stack, "backoff-marker"), 3);
  EXPECT_GE(took, 150 + 300) << "waits of base and 2*base";
  EXPECT_LT(took, (150 + 300) * 125 / 100 + 700) << "jitter is at most 25 %";
}

TEST_F(ResilienceTest, RetryAfterIsHonouredAndA429GivenUpOnReachesTheClientWithRetryAfter) {
  auto stack = start_stack(with_retries(2));
  const auto t = Clock::now();
  const auto r = post_chat(stack->port(), stack->key.key, chat_body("rate-limited-1s", "retry-after-marker"));
  const auto took = ms_since(t);
  EXPECT_TRUE(IsApiError(r, 429, "rate_limit_error", "rate_limit_exceeded"));
  EXPECT_EQ(r.header("retry-after"), "1");
  EXPECT_EQ(upstream_calls(*stack, "retry-after-marker"), 2);
  EXPECT_GE(took, 1000) << "the upstream said Retry-After: 1";
}

TEST_F(ResilienceTest, ARetryThatWouldPassTheBudgetIsNotMade) {
  // The upstream asks for 7 s; the budget is 2 s: the gateway answers at once.
  auto stack = start_stack(with_retries(5, 20, /*budget_ms=*/2000));
  const auto t = Clock::now();
  const auto r = post_chat(stack->port(), stack->key.key, chat_body("rate-limited", "budget-marker"));
  EXPECT_LT(ms_since(t), 1500);
  EXPECT_TRUE(IsApiError(r, 429, "rate_limit_error", "rate_limit_exceeded"));
  EXPECT_EQ(r.header("retry-after"), "7");
  EXPECT_EQ(upstream_calls(*stack, "budget-marker"), 1);
}

TEST_F(ResilienceTest, TheBudgetBoundsTheBackoffToo) {
  // Waits of 200 then 400 ms: the second would end past the 500 ms budget.
  auto stack = start_stack(with_retries(5, /*base_ms=*/200, /*budget_ms=*/500));
  post_chat(stack->port(), stack->key.key, chat_body("err-500", "budget-backoff-marker"));
  EXPECT_EQ(upstream_calls(*stack, "budget-backoff-marker"), 2);
}

TEST_F(ResilienceTest, FirstByteTimeoutIs504AfterRetries) {
  auto options = with_retries(2);
  options.timeout_ms = 400;
  auto stack = start_stack(options);
  const auto t = Clock::now();
  const auto r = post_chat(stack->port(), stack->key.key, chat_body("slow-1s", "timeout-marker"));
  EXPECT_TRUE(IsApiError(r, 504, "api_error", "provider_timeout"));
  EXPECT_EQ(upstream_calls(*stack, "timeout-marker"), 2);
  EXPECT_LT(ms_since(t), 2000);
}

TEST_F(ResilienceTest, TotalTimeoutEndsAStreamThatKeepsDribbling) {
  auto options = with_retries(1);
  options.timeout_ms = 1000;        // each event comes well within this
  options.total_timeout_ms = 1000;  // but the whole stream does not
  auto stack = start_stack(options);
  const auto t = Clock::now();
  const auto r = stream_chat(stack->port(), stack->key.key, chat_body("long-stream", "total-timeout", true));
  EXPECT_LT(ms_since(t), 1600);
  ASSERT_EQ(r.status, 200);
  const auto s = summarize(r.events);
  ASSERT_TRUE(s.error.has_value()) << "the stream must end with an error event";
  EXPECT_EQ((*s.error)["error"]["code"], "provider_timeout");
}

TEST_F(ResilienceTest, NothingIsRetriedOnceAByteReachedTheClient) {
  auto stack = start_stack(with_retries(5));
  const auto r = stream_chat(stack->port(), stack->key.key, chat_body("cut-2", "cut-no-retry", true));
  ASSERT_EQ(r.status, 200);
  const auto s = summarize(r.events);
  ASSERT_TRUE(s.error.has_value());
  EXPECT_EQ((*s.error)["error"]["code"], "provider_failed");
  EXPECT_FALSE(s.done_last);
  EXPECT_EQ(upstream_calls(*stack, "cut-no-retry"), 1);
}

TEST_F(ResilienceTest, AStreamThatFailsBeforeItsFirstByteIsRetried) {
  auto stack = start_stack(with_retries(3));
  const auto r = stream_chat(stack->port(), stack->key.key, chat_body("err-503", "stream-retry", true));
  EXPECT_EQ(r.status, 502) << "a failure before the stream began is a plain JSON error";
  EXPECT_EQ(upstream_calls(*stack, "stream-retry"), 3);
}

TEST_F(ResilienceTest, AClientThatHangsUpCancelsTheUpstreamCallAtOnce) {
  auto stack = start_stack(with_retries(1));
  const std::string id_marker = "hang-up-marker";
  {
    RawConnection c(stack->port());
    const std::string body = chat_body("slow-1s", id_marker);
    c.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + stack->key.key +
           "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + body);
    std::this_thread::sleep_for(200ms);
  }  // closed 200 ms into a call the upstream answers after 1 s
  // Its access line says so (status 499, as nginx logs a client that left),
  // not a 500 the gateway could not have sent to anyone.
  ASSERT_TRUE(stack->gateway->wait_log("\"status\":499,\"error\":\"client_disconnected\"", 3s))
      << "the abandoned call left no record:\n"
      << stack->gateway->log();
  EXPECT_FALSE(stack->fake->find_request(id_marker).is_null()) << "the request never reached the upstream";
  const std::string log = stack->gateway->log();
  const auto at = log.find("\"status\":499,\"error\":\"client_disconnected\"");
  const auto line_start = log.rfind('\n', at) + 1;  // npos + 1: the first line
  const json line = json::parse(log.substr(line_start, log.find('\n', at) - line_start), nullptr, false);
  ASSERT_TRUE(line.is_object() && line.contains("request_id")) << log;
  const auto rec = stack->usage().wait_for(line["request_id"].get<std::string>(), 3s);
  ASSERT_TRUE(rec) << "no usage record with status 499 for the abandoned call:\n" << stack->gateway->log();
  EXPECT_EQ(rec->error_code, "client_disconnected");
  EXPECT_LT(rec->latency_us, 700'000) << "the gateway waited for the upstream instead of dropping it";
}

TEST_F(ResilienceTest, AStreamAbandonedMidwayKeepsTheTokensSeenSoFar) {
  auto stack = start_stack(with_retries(1));
  std::string id;
  {
    SseStream stream(stack->port(), stack->key.key, chat_body("long-stream", "abandon-tokens", true));
    ASSERT_EQ(stream.status(), 200);
    id = stream.header("x-request-id");
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(stream.next().has_value()) << stream.error();
  }
  const auto rec = stack->usage().wait_for(id, 5s);
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->error_code, "client_disconnected");
  EXPECT_GT(rec->prompt_tokens, 0) << "the host's own count of the prompt";
  EXPECT_GT(rec->completion_tokens, 0) << "the text relayed before the client left";
  EXPECT_EQ(rec->total_tokens, rec->prompt_tokens + rec->completion_tokens);
  EXPECT_LT(rec->latency_us, 1'200'000);
}

TEST_F(ResilienceTest, AFullPoolMakesTheNextRequestWaitForAConnection) {
  auto options = with_retries(1);
  options.max_connections = 1;
  auto stack = start_stack(options);
  const auto t = Clock::now();
  HttpResponse a, b;
  std::thread first([&] { a = post_chat(stack->port(), stack->key.key, chat_body("slow-1s", "pool-a")); });
  std::this_thread::sleep_for(100ms);
  b = post_chat(stack->port(), stack->key.key, chat_body("gpt-4o-mini", "pool-b"));
  const auto b_done = ms_since(t);
  first.join();
  EXPECT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(b.status, 200) << b.body;
  EXPECT_GE(b_done, 900) << "with one connection the second call waits for the first";
}

}  // namespace
}  // namespace it
