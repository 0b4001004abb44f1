// Money, from the outside: costs on usage records, budgets (tenant, feature,
// key) and the credit account refusing with 402 before anything goes
// upstream, the clamp of an unset max_tokens and what the vendor is told,
// spend settling to exactly what the records cost, rate limits with
// Retry-After and OpenAI's headers, GET /v1/usage and /v1/budgets, and the
// bad input of each.
#include "harness/checks.h"
#include "harness/stack.h"

#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;

// $1000 per million tokens in and out: one token costs 1000 micro-USD.
constexpr const char* kPricey =
    "  pricey: { provider: openai, model: \"gpt-4o-mini\", context_window: 128000, max_output_tokens: 1000, "
    "prices: { input: 1000, output: 1000 } }\n"
    // The same prices, streamed slowly: a client can leave mid-stream.
    "  pricey-slow: { provider: openai, model: \"gpt-4o-mini+chunk_delay_ms=300+words=6\", context_window: "
    "128000, "
    "max_output_tokens: 1000, prices: { input: 1000, output: 1000 } }\n";

GatewayOptions spend_options() {
  GatewayOptions o;
  o.extra_catalog_yaml = kPricey;
  return o;
}

class SpendControlTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    try {
      stack_ = start_stack(spend_options());
      admin_ = stack_->gateway->create_key("acme", "admin").key;
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }
  static void TearDownTestSuite() { stack_.reset(); }

 protected:
  void SetUp() override { ASSERT_NE(stack_, nullptr) << error_; }
  static Gateway& gw() { return *stack_->gateway; }
  static int port() { return stack_->port(); }

  // A tenant of its own per test, so budgets never meet.
  static Gateway::Key tenant(const std::string& name) {
    gw().create_tenant(name);
    return gw().create_key(name, "chat usage:read budgets:read");
  }

  static HttpResponse chat(const std::string& key, const json& body, const Headers& extra = {}) {
    HttpRequest r;
    r.body = body.dump();
    r.headers = {{"Authorization", "Bearer " + key}};
    for (const auto& h : extra) r.headers.push_back(h);
    return http_call(port(), r);
  }
  static json body(const std::string& text, std::optional<std::int64_t> max_tokens = std::nullopt) {
    json b = {{"model", "pricey"}, {"messages", user_messages(text)}};
    if (max_tokens) b["max_tokens"] = *max_tokens;
    return b;
  }
  static HttpResponse admin(const std::string& method, const std::string& path, const json& b = nullptr) {
    HttpRequest r;
    r.method = method;
    r.path = path;
    r.body = b.is_null() ? "" : b.dump();
    r.headers = {{"Authorization", "Bearer " + admin_}};
    return http_call(port(), r);
  }
  static json budgets(const std::string& key) { return http_get(port(), "/v1/budgets", key).json(); }

  // The tenant's usage, once `count` records are written (bounded wait).
  static json usage_after(const std::string& key, std::size_t count, const std::string& query = "") {
    json last;
    for (int i = 0; i < 100; ++i) {
      last = http_get(port(), "/v1/usage" + query, key).json();
      if (last.contains("data") && last["data"].size() >= count) return last;
      std::this_thread::sleep_for(50ms);
    }
    ADD_FAILURE() << "fewer than " << count << " usage records after 5 s: " << last.dump();
    return last;
  }

  // Polls GET /v1/budgets until the first budget's spent_micros (or the
  // credit's) reaches `at_least`.
  static json budgets_when_spent(const std::string& key, std::int64_t at_least, bool credit = false) {
    json b;
    for (int i = 0; i < 100; ++i) {
      b = budgets(key);
      const json& item = credit ? b["credit"] : b["data"][0];
      if (item.is_object() && item["spent_micros"].get<std::int64_t>() >= at_least) return b;
      std::this_thread::sleep_for(50ms);
    }
    return b;
  }

  static void set_rate_limits(const std::string& tenant, const json& limits) {
    auto r = gw().cli({"tenants", "settings", tenant, "--set", json{{"rate_limits", limits}}.dump()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::this_thread::sleep_for(300ms);  // past the tenant cache's TTL (100 ms here)
  }

  // Rate limits count UTC minutes: start with enough of one left.
  static void wait_for_fresh_minute() {
    for (int i = 0; i < 60 && unix_ms_now() % 60000 > 40000; ++i) std::this_thread::sleep_for(500ms);
  }

  static inline std::unique_ptr<Stack> stack_;
  static inline std::string admin_;
  static inline std::string error_;
};

TEST_F(SpendControlTest, EveryRecordCarriesItsCostAndThePricesThatApplied) {
  const auto key = tenant("cost-one");
  const std::string text = "what does this cost";
  const auto r = chat(key.key, body(text));
  ASSERT_EQ(r.status, 200) << r.body;
  const json expected = fake_usage(user_messages(text), fake_reply(user_messages(text)));
  const json page = usage_after(key.key, 1);
  ASSERT_EQ(page["data"].size(), 1u);
  const json& rec = page["data"][0];
  EXPECT_EQ(rec["request_id"], r.header("x-request-id"));
  EXPECT_EQ(rec["model"], "pricey");
  EXPECT_EQ(rec["prompt_tokens"], expected["prompt_tokens"]);
  EXPECT_EQ(rec["completion_tokens"], expected["completion_tokens"]);
  const std::int64_t cost = expected["total_tokens"].get<std::int64_t>() * 1000;
  EXPECT_EQ(rec["cost_micros"], cost);
  EXPECT_EQ(
      rec["cost"], std::to_string(cost / 1000000) + "." + [&] {
        std::string f = std::to_string(cost % 1000000);
        return std::string(6 - f.size(), '0') + f;
      }());
  EXPECT_EQ(rec["prices"]["input"], "1000.000000");
  EXPECT_EQ(rec["prices"]["output"], "1000.000000");
  EXPECT_EQ(rec["currency"], "USD");
  EXPECT_EQ(page["totals"]["cost_micros"], cost);
  EXPECT_EQ(page["totals"]["requests"], 1);
}

TEST_F(SpendControlTest, AMaxTokensThatDoesNotFitIs402BeforeAnythingGoesUpstream) {
  const auto key = tenant("budget-402");
  auto created =
      gw().cli({"budgets", "create", "--tenant", "budget-402", "--window", "day", "--limit", "0.01"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string marker = "nothing-upstream-402";
  const auto r = chat(key.key, body(marker, 50));
  EXPECT_TRUE(IsApiError(r, 402, "invalid_request_error", "insufficient_credits"));
  const std::string message = r.json()["error"]["message"];
  EXPECT_NE(message.find("daily budget of the tenant"), std::string::npos) << message;
  EXPECT_NE(message.find("resets at "), std::string::npos) << message;
  EXPECT_EQ(r.header("retry-after"), "") << "402 is not to be retried";
  EXPECT_TRUE(stack_->fake->find_request(marker).is_null()) << "refused before the upstream call";
  EXPECT_TRUE(gw().wait_log("refused: BUDGET_EXCEEDED", 5s));
  const json page = usage_after(key.key, 1);
  EXPECT_EQ(page["data"][0]["status"], 402);
  EXPECT_EQ(page["data"][0]["cost_micros"], 0);
  EXPECT_EQ(page["data"][0].count("reason"), 0u) << "the internal reason never reaches the wire";
  EXPECT_EQ(budgets(key.key)["data"][0]["spent_micros"], 0);
}

TEST_F(SpendControlTest, AnUnsetMaxTokensIsClampedToWhatFitsAndTheVendorIsToldSo) {
  const auto key = tenant("budget-clamp");
  ASSERT_EQ(
      gw().cli({"budgets", "create", "--tenant", "budget-clamp", "--window", "month", "--limit", "0.05"})
          .exit_code,
      0);
  const std::string marker = "clamp-me-please";
  const auto r = chat(key.key, body(marker));
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_TRUE(r.has_header("x-max-tokens-clamped"));
  const std::int64_t clamped = std::stoll(r.header("x-max-tokens-clamped"));
  EXPECT_GE(clamped, 16);
  EXPECT_LT(clamped, 50) << "50 tokens of output would cost the whole budget";
  const json sent = stack_->fake->find_request(marker);
  ASSERT_FALSE(sent.is_null());
  EXPECT_EQ(sent["body"]["max_tokens"], clamped) << sent.dump();
}

TEST_F(SpendControlTest, WithABudgetTheVendorIsAlwaysToldTheOutputLimit) {
  const auto key = tenant("budget-told");
  ASSERT_EQ(gw().cli({"budgets", "create", "--tenant", "budget-told", "--window", "month", "--limit", "100"})
                .exit_code,
            0);
  const std::string marker = "tell-the-vendor";
  ASSERT_EQ(chat(key.key, body(marker)).status, 200);
  const json sent = stack_->fake->find_request(marker);
  ASSERT_FALSE(sent.is_null());
  EXPECT_EQ(sent["body"]["max_tokens"], 1000) << "the catalog's max_output_tokens, which the hold covers";
}

TEST_F(SpendControlTest, SpendSettlesToExactlyWhatTheRecordsCost) {
  const auto key = tenant("budget-settle");
  ASSERT_EQ(gw().cli({"budgets", "create", "--tenant", "budget-settle", "--window", "hour", "--limit", "1"})
                .exit_code,
            0);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(chat(key.key, body("settle " + std::to_string(i), 20)).status, 200);
  const json page = usage_after(key.key, 3);
  const std::int64_t cost = page["totals"]["cost_micros"];
  EXPECT_GT(cost, 0);
  const json b = budgets_when_spent(key.key, cost);
  const json& budget = b["data"][0];
  EXPECT_EQ(budget["spent_micros"], cost);
  EXPECT_EQ(budget["limit_micros"], 1000000);
  EXPECT_EQ(budget["window"], "hour");
  EXPECT_EQ(budget["scope"], "tenant");
  EXPECT_EQ(budget["remaining_micros"].get<std::int64_t>(),
            1000000 - cost - budget["reserved_micros"].get<std::int64_t>());
  EXPECT_EQ(budget["resets_at"].get<std::string>().substr(14), "00:00Z");
  EXPECT_EQ(b["credit"], nullptr);
}

TEST_F(SpendControlTest, TheCreditAccountRefusesWhenDepletedAndIsLoweredBySpend) {
  const auto key = tenant("credit");
  ASSERT_EQ(gw().cli({"credits", "top-up", "--tenant", "credit", "--amount", "0.005"}).exit_code, 0);
  auto r = chat(key.key, body("credit please", 50));
  EXPECT_TRUE(IsApiError(r, 402, "invalid_request_error", "insufficient_credits"));
  EXPECT_NE(r.json()["error"]["message"].get<std::string>().find("credit account"), std::string::npos);
  EXPECT_TRUE(gw().wait_log("refused: CREDIT_INSUFFICIENT", 5s));
  auto top = admin("POST", "/internal/v1/tenants/credit/credits", {{"amount", "1.00"}});
  ASSERT_EQ(top.status, 200) << top.body;
  EXPECT_EQ(top.json()["topped_up_micros"], 1005000);
  std::this_thread::sleep_for(300ms);
  r = chat(key.key, body("credit please", 50));
  ASSERT_EQ(r.status, 200) << r.body;
  const std::int64_t cost = usage_after(key.key, 2)["totals"]["cost_micros"];
  const json credit = budgets_when_spent(key.key, cost, true)["credit"];
  EXPECT_EQ(credit["spent_micros"], cost);
  EXPECT_EQ(credit["balance_micros"], 1005000 - cost);
}

TEST_F(SpendControlTest, FeatureAndKeyBudgetsApplyOnlyToTheirOwn) {
  const auto key = tenant("scoped");
  const auto other = gw().create_key("scoped", "chat");
  ASSERT_EQ(gw().cli({"budgets", "create", "--tenant", "scoped", "--window", "day", "--limit", "0.005",
                      "--feature", "search"})
                .exit_code,
            0);
  ASSERT_EQ(gw().cli({"budgets", "create", "--tenant", "scoped", "--window", "hour", "--limit", "0.005",
                      "--key-id", std::to_string(other.id)})
                .exit_code,
            0);
  auto search = chat(key.key, body("find it", 50), {{"X-Feature", "search"}});
  EXPECT_TRUE(IsApiError(search, 402, "invalid_request_error", "insufficient_credits"));
  EXPECT_NE(search.json()["error"]["message"].get<std::string>().find("feature 'search'"), std::string::npos);
  EXPECT_EQ(chat(key.key, body("find it", 50), {{"X-Feature", "chat"}}).status, 200);
  EXPECT_EQ(chat(key.key, body("find it", 50)).status, 200);
  auto keyed = chat(other.key, body("find it", 50));
  EXPECT_TRUE(IsApiError(keyed, 402, "invalid_request_error", "insufficient_credits"));
  const json page = usage_after(key.key, 1, "?feature=chat");
  EXPECT_EQ(page["data"][0]["feature"], "chat");
}

TEST_F(SpendControlTest, ABadFeatureHeaderIs400NamingIt) {
  const auto key = tenant("feature-bad");
  for (const std::string& bad : {std::string(1024, 'f'), std::string("has space"), std::string("slash/no"),
                                 std::string("caf\xc3\xa9")}) {
    auto r = chat(key.key, body("x", 5), {{"X-Feature", bad}});
    EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_parameter", "X-Feature")) << bad.size();
    EXPECT_LT(r.body.size(), 1024u) << "never echoes the value";
  }
  auto ok = chat(key.key, body("x", 5), {{"X-Feature", "a.b_c:d-1"}});
  EXPECT_EQ(ok.status, 200);
}

TEST_F(SpendControlTest, RequestsPerMinuteGive429WithRetryAfterAndOpenAiHeaders) {
  const auto key = tenant("rpm");
  set_rate_limits("rpm", {{"tenant_requests_per_minute", 2}, {"tenant_tokens_per_minute", 100000}});
  wait_for_fresh_minute();
  auto first = chat(key.key, body("one", 5));
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.header("x-ratelimit-limit-requests"), "2");
  EXPECT_EQ(first.header("x-ratelimit-remaining-requests"), "1");
  EXPECT_EQ(first.header("x-ratelimit-limit-tokens"), "100000");
  EXPECT_FALSE(first.header("x-ratelimit-remaining-tokens").empty());
  const std::string reset = first.header("x-ratelimit-reset-requests");
  EXPECT_TRUE(reset.size() >= 2 && (reset.back() == 's')) << reset;
  ASSERT_EQ(chat(key.key, body("two", 5)).status, 200);
  auto third = chat(key.key, body("three", 5));
  EXPECT_TRUE(IsApiError(third, 429, "rate_limit_error", "rate_limit_exceeded"));
  const std::string retry = third.header("retry-after");
  ASSERT_FALSE(retry.empty());
  const int seconds = std::stoi(retry);
  EXPECT_GE(seconds, 1);
  EXPECT_LE(seconds, 60);
  EXPECT_NE(third.json()["error"]["message"].get<std::string>().find("retry in " + retry + " seconds"),
            std::string::npos);
  EXPECT_TRUE(gw().wait_log("refused: RATE_LIMITED", 5s));
}

TEST_F(SpendControlTest, TokensPerMinuteCountTheHold) {
  const auto key = tenant("tpm");
  set_rate_limits("tpm", {{"key_tokens_per_minute", 300}});
  wait_for_fresh_minute();
  auto big = chat(key.key, body("too big", 400));
  EXPECT_TRUE(IsApiError(big, 429, "rate_limit_error", "rate_limit_exceeded"));
  EXPECT_NE(big.json()["error"]["message"].get<std::string>().find("tokens per minute"), std::string::npos);
  EXPECT_EQ(chat(key.key, body("small", 20)).status, 200);
}

TEST_F(SpendControlTest, AdminAndCliRefuseBadBudgetsAndTopUps) {
  tenant("admin-bad");
  const std::string path = "/internal/v1/tenants/admin-bad/budgets";
  for (const json& limit : {json("-1"), json("0"), json(-5), json("1e3"), json("1.0000001"), json("abc"),
                            json("1000000001"), json(true)}) {
    auto r = admin("POST", path, {{"window", "day"}, {"limit", limit}});
    EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_parameter", "limit")) << limit.dump();
  }
  EXPECT_TRUE(IsApiError(admin("POST", path, {{"window", "week"}, {"limit", "1"}}), 400,
                         "invalid_request_error", "invalid_parameter", "window"));
  EXPECT_TRUE(IsApiError(admin("POST", path, {{"scope", "galaxy"}, {"window", "day"}, {"limit", "1"}}), 400,
                         "invalid_request_error", "invalid_parameter", "scope"));
  EXPECT_TRUE(IsApiError(admin("POST", path, {{"window", "day"}}), 400, "invalid_request_error",
                         "missing_required_field", "limit"));
  auto created = admin("POST", path, {{"window", "day"}, {"limit", "2.50"}, {"name", "daily"}});
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.json()["limit_micros"], 2500000);
  EXPECT_EQ(admin("POST", path, {{"window", "day"}, {"limit", "3"}}).status, 409);
  const std::int64_t id = created.json()["id"];
  auto patched = admin("PATCH", "/internal/v1/budgets/" + std::to_string(id), {{"limit", "4"}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(patched.json()["limit_micros"], 4000000);
  EXPECT_EQ(admin("PATCH", "/internal/v1/budgets/999999", {{"limit", "4"}}).status, 404);
  EXPECT_EQ(admin("DELETE", "/internal/v1/budgets/" + std::to_string(id)).status, 200);
  EXPECT_EQ(admin("DELETE", "/internal/v1/budgets/" + std::to_string(id)).status, 404);
  // A top-up that would pass the largest balance is refused, not wrapped.
  const std::string credits = "/internal/v1/tenants/admin-bad/credits";
  ASSERT_EQ(admin("POST", credits, {{"amount", "1000000000"}}).status, 200);
  EXPECT_TRUE(IsApiError(admin("POST", credits, {{"amount", "1"}}), 400, "invalid_request_error",
                         "invalid_parameter", "amount"));
  EXPECT_TRUE(IsApiError(admin("POST", credits, {{"amount", "-1"}}), 400, "invalid_request_error",
                         "invalid_parameter", "amount"));
  auto cli = gw().cli({"budgets", "create", "--tenant", "admin-bad", "--window", "hour", "--limit", "ten"});
  EXPECT_EQ(cli.exit_code, 2);
  EXPECT_NE(cli.err.find("limit"), std::string::npos) << cli.err;
  auto settings = gw().cli({"tenants", "settings", "admin-bad", "--set",
                            R"({"rate_limits": {"tenant_requests_per_minute": -1}})"});
  EXPECT_EQ(settings.exit_code, 2) << settings.out;
}

TEST_F(SpendControlTest, BadMaxTokensWithABudgetIsRefusedAndNeverCharged) {
  const auto key = tenant("max-bad");
  ASSERT_EQ(
      gw().cli({"budgets", "create", "--tenant", "max-bad", "--window", "day", "--limit", "1"}).exit_code, 0);
  for (const json& bad : {json(0), json(-1), json("10"), json(1.5)}) {
    json b = body("bad max");
    b["max_tokens"] = bad;
    EXPECT_TRUE(IsApiError(chat(key.key, b), 400, "invalid_request_error", "invalid_parameter", "max_tokens"))
        << bad.dump();
  }
  auto huge = chat(key.key, body("huge", 1000000000000LL));
  EXPECT_TRUE(huge.status == 402 || huge.status == 422) << huge.body;
  usage_after(key.key, 5);
  EXPECT_EQ(budgets(key.key)["data"][0]["spent_micros"], 0);
  EXPECT_EQ(budgets(key.key)["data"][0]["reserved_micros"], 0);
}

TEST_F(SpendControlTest, UsagePagesNeverSkipOrRepeatWhileRecordsArrive) {
  const auto key = tenant("paging");
  std::vector<std::string> first_five;
  for (int i = 0; i < 5; ++i) {
    auto r = chat(key.key, body("page " + std::to_string(i), 5));
    ASSERT_EQ(r.status, 200);
    first_five.push_back(r.header("x-request-id"));
  }
  usage_after(key.key, 5);  // all five written: records arrive in batches
  json page = usage_after(key.key, 2, "?limit=2");
  std::vector<std::string> seen;
  for (const auto& rec : page["data"]) seen.push_back(rec["request_id"]);
  EXPECT_EQ(seen.front(), first_five.back()) << "newest first";
  // New records arrive between pages: they are newer than the cursor.
  for (int i = 0; i < 2; ++i) ASSERT_EQ(chat(key.key, body("late " + std::to_string(i), 5)).status, 200);
  std::this_thread::sleep_for(200ms);
  for (int guard = 0; guard < 5 && page["has_more"] == true; ++guard) {
    page = http_get(port(), "/v1/usage?limit=2&cursor=" + page["next_cursor"].get<std::string>(), key.key)
               .json();
    for (const auto& rec : page["data"]) seen.push_back(rec["request_id"]);
  }
  std::vector<std::string> expected(first_five.rbegin(), first_five.rend());
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(page["totals"]["requests"], 7);
  const json grouped = http_get(port(), "/v1/usage?group_by=model", key.key).json();
  ASSERT_EQ(grouped["data"].size(), 1u) << grouped.dump();
  EXPECT_EQ(grouped["data"][0]["key"], "pricey");
  EXPECT_EQ(grouped["data"][0]["requests"], 7);
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/usage?limit=0", key.key), 400, "invalid_request_error",
                         "invalid_parameter", "limit"));
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/usage?limit=10001", key.key), 400, "invalid_request_error",
                         "invalid_parameter", "limit"));
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/usage?cursor=Zm9yZ2Vk", key.key), 400, "invalid_request_error",
                         "invalid_parameter", "cursor"));
  EXPECT_TRUE(
      IsApiError(http_get(port(), "/v1/usage?from=2026-11-25T00:00:00Z&to=2026-11-24T00:00:00Z", key.key),
                 400, "invalid_request_error", "invalid_parameter", "from"));
  // A cursor is bound to its filters.
  const json filtered = http_get(port(), "/v1/usage?limit=1&stream=false", key.key).json();
  ASSERT_TRUE(filtered["next_cursor"].is_string());
  EXPECT_TRUE(IsApiError(
      http_get(port(), "/v1/usage?limit=1&cursor=" + filtered["next_cursor"].get<std::string>(), key.key),
      400, "invalid_request_error", "invalid_parameter", "cursor"));
}

TEST_F(SpendControlTest, UsageAndBudgetsNeedTheirScopes) {
  tenant("scopes");
  const auto chat_only = gw().create_key("scopes", "chat");
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/usage", chat_only.key), 403, "authentication_error",
                         "permission_denied"));
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/budgets", chat_only.key), 403, "authentication_error",
                         "permission_denied"));
}

TEST_F(SpendControlTest, AStreamSettlesFromItsFinalUsage) {
  const auto key = tenant("budget-stream");
  ASSERT_EQ(gw().cli({"budgets", "create", "--tenant", "budget-stream", "--window", "day", "--limit", "1"})
                .exit_code,
            0);
  const std::string text = "stream me a little";
  json b = body(text, 30);
  b["stream"] = true;
  const auto r = stream_chat(port(), key.key, b.dump());
  ASSERT_EQ(r.status, 200);
  ASSERT_TRUE(summarize(r.events).done_last);
  const json expected = fake_usage(user_messages(text), fake_reply(user_messages(text)));
  const std::int64_t cost = expected["total_tokens"].get<std::int64_t>() * 1000;
  const json page = usage_after(key.key, 1);
  EXPECT_EQ(page["data"][0]["stream"], true);
  EXPECT_EQ(page["data"][0]["cost_micros"], cost);
  const json budget = budgets_when_spent(key.key, cost)["data"][0];
  EXPECT_EQ(budget["spent_micros"], cost);
}

TEST_F(SpendControlTest, AStreamTheClientLeavesIsSettledFromWhatWasSeen) {
  const auto key = tenant("budget-left");
  ASSERT_EQ(
      gw().cli({"budgets", "create", "--tenant", "budget-left", "--window", "day", "--limit", "1"}).exit_code,
      0);
  json b = {{"model", "pricey-slow"},
            {"messages", user_messages("leave early please")},
            {"stream", true},
            {"max_tokens", 50}};
  {
    SseStream stream(port(), key.key, b.dump());
    ASSERT_TRUE(stream.next());  // the first chunk arrived; hang up
  }
  const json page = usage_after(key.key, 1);
  const json& rec = page["data"][0];
  EXPECT_EQ(rec["error_code"], "client_disconnected");
  EXPECT_GT(rec["cost_micros"].get<std::int64_t>(), 0) << "the prompt and what was relayed are charged";
  const json budget = budgets_when_spent(key.key, rec["cost_micros"])["data"][0];
  EXPECT_EQ(budget["spent_micros"], rec["cost_micros"]);
  EXPECT_EQ(budget["reserved_micros"].get<std::int64_t>() + budget["spent_micros"].get<std::int64_t>() +
                budget["remaining_micros"].get<std::int64_t>(),
            1000000);
}

}  // namespace
}  // namespace it
