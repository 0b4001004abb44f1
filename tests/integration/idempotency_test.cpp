// Idempotent retries, from the outside (spec 8): a retry with a key seen
// before gets the first answer again, plain or streamed, byte for byte, with
// Idempotent-Replayed: true, and calls no provider, writes no usage record,
// charges nothing. Concurrent duplicates wait for the first (a stream
// duplicate follows it live); the same key with another request is refused;
// keys are per tenant, expire, and are freed by a first attempt that failed;
// an answer over the size bound is served but not kept. Bad keys get 400.
#include "harness/checks.h"
#include "harness/stack.h"

#include <sqlite3.h>

#include <array>
#include <atomic>
#include <filesystem>
#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;

constexpr const char* kIdempotencyAliases =
    // $1000 per million tokens: one token costs 1000 micro-USD (charges are visible).
    "  idem: { provider: openai, model: \"gpt-4o-mini\", context_window: 128000, max_output_tokens: 1000, "
    "prices: { input: 1000, output: 1000 } }\n"
    // Slow to answer: duplicates arrive while the first runs.
    "  idem-slow: { provider: openai, model: \"gpt-4o-mini+delay_ms=600\", context_window: 128000, "
    "max_output_tokens: 1000, prices: { input: 1000, output: 1000 } }\n"
    // Slower still: a duplicate on another gateway gives up waiting first.
    "  idem-slower: { provider: openai, model: \"gpt-4o-mini+delay_ms=2000\", context_window: 128000, "
    "max_output_tokens: 1000, prices: { input: 1000, output: 1000 } }\n"
    // A slow stream of many events: a client can leave and come back mid-way.
    "  idem-stream-slow: { provider: openai, model: \"gpt-4o-mini+chunk_delay_ms=60+words=12\", "
    "context_window: 128000, max_output_tokens: 1000, prices: { input: 1000, output: 1000 } }\n"
    // A long answer, for the size bound.
    "  idem-long: { provider: openai, model: \"gpt-4o-mini+words=400\", context_window: 128000, "
    "max_output_tokens: 1000, prices: { input: 1000, output: 1000 } }\n"
    // The vendor fails.
    "  idem-failing: { provider: openai, model: \"gpt-4o-mini+status=500\", context_window: 128000, "
    "max_output_tokens: 1000, prices: { input: 1000, output: 1000 } }\n";

GatewayOptions options(const std::string& idempotency_yaml = {}) {
  GatewayOptions o;
  o.extra_catalog_yaml = kIdempotencyAliases;
  if (!idempotency_yaml.empty()) o.extra_yaml = "idempotency:\n" + idempotency_yaml;
  return o;
}

json body(const std::string& model, const std::string& text, bool stream = false) {
  json b = {{"model", model}, {"messages", user_messages(text)}};
  if (stream) b["stream"] = true;
  return b;
}

class IdempotencyFixture : public ::testing::Test {
 protected:
  static Gateway& gw(Stack& s) { return *s.gateway; }

  static HttpResponse chat(Stack& s, const std::string& key, const json& b, const Headers& extra = {}) {
    HttpRequest r;
    r.body = b.dump();
    r.headers = {{"Authorization", "Bearer " + key}};
    for (const auto& h : extra) r.headers.push_back(h);
    return http_call(s.port(), r);
  }
  // How many requests the fake vendor saw whose body holds `marker`.
  static int provider_calls(Stack& s, const std::string& marker) {
    int n = 0;
    for (const auto& r : s.fake->requests()) {
      if (r["body"].dump().find(marker) != std::string::npos) ++n;
    }
    return n;
  }
  // A tenant of its own with a chat key and $1 of credit.
  static Gateway::Key tenant(Stack& s, const std::string& name) {
    gw(s).create_tenant(name);
    auto key = gw(s).create_key(name, "chat usage:read budgets:read");
    EXPECT_EQ(gw(s).cli({"credits", "top-up", "--tenant", name, "--amount", "1.00"}).exit_code, 0);
    return key;
  }
  // The tenant's usage records once `count` are there, then a moment more
  // (a record that should not exist would have arrived by then).
  static json usage(Stack& s, const std::string& key, std::size_t count) {
    json page;
    eventually([&] {
      page = http_get(s.port(), "/v1/usage", key).json();
      return page.contains("data") && page["data"].size() >= count;
    });
    std::this_thread::sleep_for(300ms);
    return http_get(s.port(), "/v1/usage", key).json();
  }
  static std::int64_t credit_spent(Stack& s, const std::string& key) {
    return http_get(s.port(), "/v1/budgets", key).json()["credit"]["spent_micros"].get<std::int64_t>();
  }
};

// One stack per suite, started with the suite's idempotency settings.
template <typename Suite>
class IdempotencySuite : public IdempotencyFixture {
 public:
  static void SetUpTestSuite() {
    try {
      stack_ = start_stack(options(Suite::kSettings));
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }
  static void TearDownTestSuite() { stack_.reset(); }

 protected:
  void SetUp() override { ASSERT_NE(stack_, nullptr) << error_; }
  static Stack& s() { return *stack_; }

  static inline std::unique_ptr<Stack> stack_;
  static inline std::string error_;
};

class IdempotencyTest : public IdempotencySuite<IdempotencyTest> {
 public:
  static constexpr const char* kSettings = "";
};

TEST_F(IdempotencyTest, ARetryGetsThePlainAnswerAgainWithoutACallARecordOrACharge) {
  const auto key = tenant(s(), "idem-plain");
  const Headers idem = {{"Idempotency-Key", "4f1c2b9e-0d7a-4c36-9a51-plain"}};
  const auto b = body("idem", "plain marker 7f3a");
  const auto first = chat(s(), key.key, b, idem);
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_FALSE(first.has_header("idempotent-replayed"));
  const json page = usage(s(), key.key, 1);
  ASSERT_EQ(page["data"].size(), 1u);
  const std::int64_t cost = page["data"][0]["cost_micros"];
  ASSERT_TRUE(eventually([&] { return credit_spent(s(), key.key) == cost; }));

  for (int i = 0; i < 3; ++i) {
    const auto again = chat(s(), key.key, b, idem);
    ASSERT_EQ(again.status, 200) << again.body;
    EXPECT_EQ(again.header("idempotent-replayed"), "true");
    EXPECT_EQ(again.body, first.body);  // byte for byte, its request_id included
    EXPECT_EQ(again.header("x-request-id"), first.header("x-request-id"));
    EXPECT_EQ(again.header("content-type"), first.header("content-type"));
  }
  EXPECT_EQ(provider_calls(s(), "plain marker 7f3a"), 1);
  EXPECT_EQ(usage(s(), key.key, 1)["data"].size(), 1u);
  EXPECT_EQ(credit_spent(s(), key.key), cost);
}

TEST_F(IdempotencyTest, ARetryGetsTheStreamAgainEventForEvent) {
  const auto key = tenant(s(), "idem-stream");
  const Headers idem = {{"Idempotency-Key", "stream-key-1"}};
  const std::string b = body("idem", "stream marker 91bc", true).dump();
  const auto first = stream_chat(s().port(), key.key, b, 10000, idem);
  ASSERT_EQ(first.status, 200);
  const auto summary = summarize(first.events);
  ASSERT_TRUE(summary.done_last);
  ASSERT_GT(first.events.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const auto again = stream_chat(s().port(), key.key, b, 10000, idem);
    ASSERT_EQ(again.status, 200) << again.body;
    EXPECT_EQ(again.header("idempotent-replayed"), "true");
    EXPECT_EQ(again.header("content-type"), first.header("content-type"));
    EXPECT_EQ(again.header("x-request-id"), first.header("x-request-id"));
    ASSERT_EQ(again.events.size(), first.events.size());
    for (std::size_t e = 0; e < first.events.size(); ++e)
      EXPECT_EQ(again.events[e].data, first.events[e].data);
    EXPECT_TRUE(summarize(again.events).done_last);
  }
  EXPECT_EQ(provider_calls(s(), "stream marker 91bc"), 1);
  EXPECT_EQ(usage(s(), key.key, 1)["data"].size(), 1u);
}

TEST_F(IdempotencyTest, TwentyConcurrentDuplicatesMakeOneCallOneRecordOneCharge) {
  const auto key = tenant(s(), "idem-twenty");
  const Headers idem = {{"Idempotency-Key", "twenty-at-once"}};
  const auto b = body("idem-slow", "twenty marker 55d0");
  std::vector<HttpResponse> answers(20);
  std::vector<std::thread> threads;
  for (int i = 0; i < 20; ++i) {
    threads.emplace_back([&, i] { answers[static_cast<std::size_t>(i)] = chat(s(), key.key, b, idem); });
  }
  for (auto& t : threads) t.join();
  int replayed = 0;
  for (const auto& a : answers) {
    ASSERT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.body, answers[0].body);
    if (a.header("idempotent-replayed") == "true") ++replayed;
  }
  EXPECT_EQ(replayed, 19);
  EXPECT_EQ(provider_calls(s(), "twenty marker 55d0"), 1);
  const json page = usage(s(), key.key, 1);
  ASSERT_EQ(page["data"].size(), 1u);
  EXPECT_EQ(page["data"][0]["request_id"], answers[0].json()["request_id"]);
  const std::int64_t cost = page["data"][0]["cost_micros"];
  EXPECT_GT(cost, 0);
  EXPECT_TRUE(eventually([&] { return credit_spent(s(), key.key) == cost; }));
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(credit_spent(s(), key.key), cost);
}

TEST_F(IdempotencyTest, AStreamDuplicateFollowsTheLiveStreamAndAClientThatLeftLosesNothing) {
  const auto key = tenant(s(), "idem-live");
  const Headers idem = {{"Idempotency-Key", "live-stream"}};
  const std::string b = body("idem-stream-slow", "live marker c0de", true).dump();
  // The first client reads two events and hangs up.
  std::string request_id;
  {
    SseStream first(s().port(), key.key, b, 20000ms, idem);
    ASSERT_EQ(first.status(), 200);
    request_id = first.header("x-request-id");
    ASSERT_TRUE(first.next().has_value());
    ASSERT_TRUE(first.next().has_value());
  }
  // It reconnects with its key while the stream still runs: every event.
  const auto again = stream_chat(s().port(), key.key, b, 10000, idem);
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.header("idempotent-replayed"), "true");
  EXPECT_EQ(again.header("x-request-id"), request_id);
  const auto summary = summarize(again.events);
  EXPECT_TRUE(summary.done_last) << again.error;
  EXPECT_EQ(summary.content, "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7 tok8 tok9 tok10 tok11");
  ASSERT_TRUE(summary.usage_chunk.has_value());
  // A third, after the end, gets the same events from the store.
  const auto later = stream_chat(s().port(), key.key, b, 10000, idem);
  ASSERT_EQ(later.events.size(), again.events.size());
  for (std::size_t e = 0; e < later.events.size(); ++e) EXPECT_EQ(later.events[e].data, again.events[e].data);
  EXPECT_EQ(provider_calls(s(), "live marker c0de"), 1);
  // One record: the first request, served to its end although its client left.
  const json page = usage(s(), key.key, 1);
  ASSERT_EQ(page["data"].size(), 1u);
  EXPECT_EQ(page["data"][0]["request_id"], request_id);
  EXPECT_EQ(page["data"][0]["status"], 200);
}

TEST_F(IdempotencyTest, ConcurrentStreamDuplicatesSeeEveryEvent) {
  const auto key = tenant(s(), "idem-follow");
  const Headers idem = {{"Idempotency-Key", "follow-stream"}};
  const std::string b = body("idem-stream-slow", "follow marker 0a0a", true).dump();
  // The first stream is under way (one event read) when the duplicate comes.
  SseStream first(s().port(), key.key, b, 20000ms, idem);
  ASSERT_EQ(first.status(), 200);
  std::vector<SseEvent> first_events;
  auto event = first.next();
  ASSERT_TRUE(event.has_value()) << first.error();
  first_events.push_back(*event);
  SseResult second;
  std::thread t([&] { second = stream_chat(s().port(), key.key, b, 10000, idem); });
  for (int i = 0; i < 1000; ++i) {
    event = first.next();
    if (!event) break;
    first_events.push_back(*event);
  }
  t.join();
  ASSERT_EQ(second.status, 200);
  EXPECT_EQ(second.header("idempotent-replayed"), "true");
  ASSERT_EQ(second.events.size(), first_events.size());
  for (std::size_t e = 0; e < first_events.size(); ++e)
    EXPECT_EQ(second.events[e].data, first_events[e].data);
  EXPECT_TRUE(summarize(second.events).done_last);
  EXPECT_EQ(provider_calls(s(), "follow marker 0a0a"), 1);
}

TEST_F(IdempotencyTest, TheSameKeyWithAnotherRequestIsRefused) {
  const auto key = tenant(s(), "idem-reuse");
  const Headers idem = {{"Idempotency-Key", "reused-key"}};
  const auto b = body("idem", "reuse marker 1111");
  ASSERT_EQ(chat(s(), key.key, b, idem).status, 200);
  // Another body.
  auto r = chat(s(), key.key, body("idem", "reuse marker 2222"), idem);
  EXPECT_TRUE(IsApiError(r, 422, "invalid_request_error", "idempotency_key_reused", "Idempotency-Key"));
  // The same body for another feature.
  r = chat(s(), key.key, b, {{"Idempotency-Key", "reused-key"}, {"X-Feature", "search"}});
  EXPECT_TRUE(IsApiError(r, 422, "invalid_request_error", "idempotency_key_reused", "Idempotency-Key"));
  // The same request serialised otherwise (member order, whitespace) is the same request.
  const std::string reordered =
      "{ \"messages\" : " + user_messages("reuse marker 1111").dump(2) + ", \"model\": \"idem\" }";
  HttpRequest req;
  req.body = reordered;
  req.headers = {{"Authorization", "Bearer " + key.key}, {"Idempotency-Key", "reused-key"}};
  const auto same = http_call(s().port(), req);
  EXPECT_EQ(same.status, 200) << same.body;
  EXPECT_EQ(same.header("idempotent-replayed"), "true");
  EXPECT_EQ(provider_calls(s(), "reuse marker 1111"), 1);
  EXPECT_EQ(provider_calls(s(), "reuse marker 2222"), 0);
}

// README: bodies compare as JSON, so 1 and 1.0 are one value.
TEST_F(IdempotencyTest, NumbersWrittenDifferentlyAreTheSameRequest) {
  const auto key = tenant(s(), "idem-numbers");
  const Headers idem = {{"Idempotency-Key", "numbers-key"}};
  auto b = body("idem", "numbers marker 3131");
  b["temperature"] = 1;
  const auto first = chat(s(), key.key, b, idem);
  ASSERT_EQ(first.status, 200) << first.body;
  b["temperature"] = 1.0;
  ASSERT_NE(b.dump().find("1.0"), std::string::npos) << "the retry writes the number as 1.0";
  const auto again = chat(s(), key.key, b, idem);
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.header("idempotent-replayed"), "true");
  EXPECT_EQ(again.body, first.body);
  EXPECT_EQ(provider_calls(s(), "numbers marker 3131"), 1);
}

TEST_F(IdempotencyTest, TwoTenantsUsingOneKeyDoNotCollide) {
  const auto a = tenant(s(), "idem-tenant-a");
  const auto b = tenant(s(), "idem-tenant-b");
  const Headers idem = {{"Idempotency-Key", "shared-by-two-tenants"}};
  const auto req = body("idem", "tenants marker 3c3c");
  const auto ra = chat(s(), a.key, req, idem);
  const auto rb = chat(s(), b.key, req, idem);
  ASSERT_EQ(ra.status, 200) << ra.body;
  ASSERT_EQ(rb.status, 200) << rb.body;
  EXPECT_FALSE(rb.has_header("idempotent-replayed"));
  EXPECT_NE(ra.header("x-request-id"), rb.header("x-request-id"));
  EXPECT_EQ(provider_calls(s(), "tenants marker 3c3c"), 2);
  // And another request of B's with that key is B's own business.
  EXPECT_EQ(chat(s(), b.key, req, idem).header("idempotent-replayed"), "true");
}

TEST_F(IdempotencyTest, AFirstAttemptThatFailedOrWasRefusedLeavesTheKeyFree) {
  // Failed after reaching the vendor: not kept, the retry calls again.
  const auto key = tenant(s(), "idem-failed");
  const Headers idem = {{"Idempotency-Key", "failed-first"}};
  const auto b = body("idem-failing", "failed marker 4d4d");
  auto r = chat(s(), key.key, b, idem);
  EXPECT_EQ(r.status, 502) << r.body;
  r = chat(s(), key.key, b, idem);
  EXPECT_EQ(r.status, 502) << r.body;
  EXPECT_FALSE(r.has_header("idempotent-replayed"));
  EXPECT_EQ(provider_calls(s(), "failed marker 4d4d"), 2);

  // Refused before the vendor (credit exhausted): after a top-up the retry is served.
  gw(s()).create_tenant("idem-broke");
  const auto broke = gw(s()).create_key("idem-broke", "chat usage:read budgets:read");
  ASSERT_EQ(gw(s()).cli({"credits", "top-up", "--tenant", "idem-broke", "--amount", "0.000001"}).exit_code,
            0);
  const Headers broke_idem = {{"Idempotency-Key", "refused-first"}};
  const auto bb = body("idem", "refused marker 5e5e");
  r = chat(s(), broke.key, bb, broke_idem);
  EXPECT_TRUE(IsApiError(r, 402, "invalid_request_error", "insufficient_credits"));
  ASSERT_EQ(gw(s()).cli({"credits", "top-up", "--tenant", "idem-broke", "--amount", "1.00"}).exit_code, 0);
  std::this_thread::sleep_for(300ms);  // past the tenant cache's TTL
  r = chat(s(), broke.key, bb, broke_idem);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(r.has_header("idempotent-replayed"));
  EXPECT_EQ(provider_calls(s(), "refused marker 5e5e"), 1);
}

TEST_F(IdempotencyTest, MalformedKeysAreRefusedWithoutACall) {
  const auto key = tenant(s(), "idem-bad");
  const auto b = body("idem", "bad key marker 6f6f").dump();
  auto expect_bad = [&](const std::string& raw_key_header, const std::string& what) {
    const std::string raw =
        "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key.key +
        "\r\nContent-Type: application/json\r\n" + raw_key_header +
        "Content-Length: " + std::to_string(b.size()) + "\r\nConnection: close\r\n\r\n" + b;
    const auto r = raw_http(s().port(), raw);
    EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_parameter", "Idempotency-Key")) << what;
    EXPECT_LT(r.body.size(), 1024u) << what;  // never echoes the key
  };
  expect_bad("Idempotency-Key: " + std::string(256, 'k') + "\r\n", "256 characters");
  expect_bad("Idempotency-Key: \r\n", "empty");
  expect_bad("Idempotency-Key: caf\xc3\xa9-key\r\n", "non-ASCII");
  expect_bad("Idempotency-Key: a\tb\r\n", "a tab inside");
  expect_bad("Idempotency-Key: one\r\nIdempotency-Key: two\r\n", "sent twice");
  EXPECT_EQ(provider_calls(s(), "bad key marker 6f6f"), 0);
  // 255 printable characters are a key.
  const auto ok = chat(s(), key.key, json::parse(b), {{"Idempotency-Key", std::string(255, 'k')}});
  EXPECT_EQ(ok.status, 200) << ok.body;
}

// A short lifetime and a small bound on kept answers.
class IdempotencyLimitsTest : public IdempotencySuite<IdempotencyLimitsTest> {
 public:
  static constexpr const char* kSettings =
      "  ttl_ms: 3000\n  purge_interval_ms: 200\n  max_response_bytes: 2048\n";

 protected:
  // Rows in the store's idempotency table for `key` (of any state, or of `state`).
  static int stored_keys(const std::string& key, int state = 0) {
    sqlite3* db = nullptr;
    int n = -1;
    if (sqlite3_open_v2(s().gateway->db_path().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
      sqlite3_busy_timeout(db, 2000);
      sqlite3_stmt* st = nullptr;
      if (sqlite3_prepare_v2(
              db, "SELECT COUNT(*) FROM idempotency_keys WHERE key = ?1 AND (?2 = 0 OR state = ?2)", -1, &st,
              nullptr) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, key.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(st, 2, state);
        if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int(st, 0);
      }
      sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return n;
  }
};

TEST_F(IdempotencyLimitsTest, AKeyCountsAsNewAfterItsLifetimeAndIsPurged) {
  const auto key = tenant(s(), "idem-expiry");
  const Headers idem = {{"Idempotency-Key", "short-lived"}};
  const auto b = body("idem", "expiry marker 7a7a");
  ASSERT_EQ(chat(s(), key.key, b, idem).status, 200);
  EXPECT_EQ(chat(s(), key.key, b, idem).header("idempotent-replayed"), "true");
  EXPECT_EQ(stored_keys("short-lived"), 1);
  // Past its lifetime the purge removes it...
  EXPECT_TRUE(eventually([&] { return stored_keys("short-lived") == 0; }, 10000ms));
  // ...and the key is new again: the call is made.
  const auto fresh = chat(s(), key.key, b, idem);
  EXPECT_EQ(fresh.status, 200);
  EXPECT_FALSE(fresh.has_header("idempotent-replayed"));
  EXPECT_EQ(provider_calls(s(), "expiry marker 7a7a"), 2);
}

TEST_F(IdempotencyLimitsTest, AnAnswerOverTheBoundIsServedButNotReplayedAndNotChargedTwice) {
  const auto key = tenant(s(), "idem-large");
  const Headers idem = {{"Idempotency-Key", "too-large"}};
  const auto b = body("idem-long", "large marker 8b8b");
  const auto first = chat(s(), key.key, b, idem);
  ASSERT_EQ(first.status, 200);
  ASSERT_GT(first.body.size(), 2048u);
  // Once the key is kept (a retry arriving before that follows the first
  // request in memory and gets its answer).
  ASSERT_TRUE(eventually([&] { return stored_keys("too-large", 2) == 1; }, 3000ms));
  const auto again = chat(s(), key.key, b, idem);
  EXPECT_TRUE(
      IsApiError(again, 409, "invalid_request_error", "idempotency_response_not_kept", "Idempotency-Key"));
  EXPECT_NE(again.json()["error"]["message"].get<std::string>().find(first.header("x-request-id")),
            std::string::npos);
  EXPECT_EQ(provider_calls(s(), "large marker 8b8b"), 1);
}

// Two gateways on one store, as a scaled-out deployment runs: a retry that
// lands on the other instance waits for the first through the store (it
// cannot follow it in memory), within idempotency.wait_ms.
TEST(IdempotencyScaleOutTest, ARetryOnAnotherGatewayWaitsForTheFirstThroughTheStore) {
  FakeUpstream fake(kProviderKey);
  std::string dir = (std::filesystem::temp_directory_path() / "modelgw-idem-XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  std::array<std::unique_ptr<Gateway>, 2> gw;
  for (auto& g : gw) {
    GatewayOptions o = options("  wait_ms: 1000\n");
    o.upstream_port = fake.port();
    o.timeout_ms = 5000;  // the vendor's first byte may take the 2 s of idem-slower
    o.db_path = dir + "/shared.db";
    g = std::make_unique<Gateway>(o);
  }
  gw[0]->create_tenant("spread");
  const auto key = gw[0]->create_key("spread", "chat").key;
  for (auto& g : gw) g->start();
  auto send = [&](int which, const std::string& model, const std::string& text, const std::string& k) {
    HttpRequest r;
    r.body = body(model, text).dump();
    r.headers = {{"Authorization", "Bearer " + key}, {"Idempotency-Key", k}};
    return http_call(gw[static_cast<std::size_t>(which)]->port(), r);
  };

  // The first takes 600 ms: the retry on the other gateway waits, then replays.
  HttpResponse first;
  std::thread t([&] { first = send(0, "idem-slow", "spread marker 1a1a", "spread-1"); });
  std::this_thread::sleep_for(200ms);
  const auto retry = send(1, "idem-slow", "spread marker 1a1a", "spread-1");
  t.join();
  ASSERT_EQ(first.status, 200) << first.body;
  ASSERT_EQ(retry.status, 200) << retry.body;
  EXPECT_EQ(retry.header("idempotent-replayed"), "true");
  EXPECT_EQ(retry.body, first.body);
  EXPECT_EQ(retry.header("x-request-id"), first.header("x-request-id"));

  // The first takes 2 s, past the other gateway's 1 s wait: 409, retry later.
  std::thread slow([&] { first = send(0, "idem-slower", "spread marker 2b2b", "spread-2"); });
  std::this_thread::sleep_for(200ms);
  const auto waited = send(1, "idem-slower", "spread marker 2b2b", "spread-2");
  slow.join();
  EXPECT_TRUE(
      IsApiError(waited, 409, "invalid_request_error", "idempotency_request_in_progress", "Idempotency-Key"));
  EXPECT_EQ(waited.header("retry-after"), "1");
  ASSERT_EQ(first.status, 200) << first.body;
  const auto later = send(1, "idem-slower", "spread marker 2b2b", "spread-2");
  EXPECT_EQ(later.header("idempotent-replayed"), "true");
  EXPECT_EQ(later.body, first.body);

  int calls = 0;
  for (const auto& r : fake.requests()) {
    const std::string b = r["body"].dump();
    if (b.find("spread marker") != std::string::npos) ++calls;
  }
  EXPECT_EQ(calls, 2) << "one upstream call per key, whichever gateway the retry reached";
  for (auto& g : gw) g.reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace it
