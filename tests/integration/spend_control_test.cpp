// Money, from the outside: costs on usage records, budgets (tenant, feature,
// key) and the credit account refusing with 402 before anything goes
// upstream, the clamp of an unset max_tokens and what the vendor is told,
// spend settling to exactly what the records cost, rate limits with
// Retry-After and OpenAI's headers, GET /v1/usage and /v1/budgets, and the
// bad input of each.
#include "harness/checks.h"
#include "harness/stack.h"

#include <atomic>
#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;

// $1000 per million tokens in and out: one token costs 1000 micro-USD.
constexpr const char* kPricey =
    "  pricey: { provider: openai, model: \"gpt-4o-mini\", tokenizer: o200k_base, context_window: 128000, "
    "max_output_tokens: 1000, "
    "prices: { input: 1000, output: 1000 } }\n"
    // The same prices, streamed slowly: a client can leave mid-stream.
    "  pricey-slow: { provider: openai, model: \"gpt-4o-mini+chunk_delay_ms=300+words=6\", tokenizer: "
    "o200k_base, context_window: "
    "128000, "
    "max_output_tokens: 1000, prices: { input: 1000, output: 1000 } }\n"
    // The same prices, served the Responses API natively.
    "  pricey-native: { provider: openai-native, model: \"gpt-4o-mini\", tokenizer: o200k_base, "
    "context_window: 128000, max_output_tokens: 1000, prices: { input: 1000, output: 1000 } }\n"
    // A model whose own output limit is far past budget.default_output_tokens.
    "  pricey-long: { provider: openai, model: \"gpt-4o-mini\", tokenizer: o200k_base, context_window: "
    "400000, max_output_tokens: "
    "100000, prices: { input: 1000, output: 1000 } }\n"
    // No output limit of its own: the window decides what a request without
    // max_tokens may be told (4,096 tokens of budget.default_output_tokens
    // leave 80 for the prompt).
    "  pricey-window: { provider: openai, model: \"gpt-4o-mini\", tokenizer: o200k_base, context_window: "
    "4176, prices: { input: 1000, output: 1000 } }\n"
    // Vendors whose tokenizers are not public, counting the prompt as a
    // byte-level tokenizer's worst case: one token per UTF-8 byte (and
    // answering 8 words, within any max_tokens the tests set, as a vendor would).
    "  pricey-claude: { provider: anthropic, model: \"claude-sonnet-4+byte_tokens+words=8\", context_window: "
    "200000, max_output_tokens: 1000, prices: { input: 1000, output: 1000 } }\n"
    "  pricey-gemini: { provider: gemini, model: \"gemini-2.5-flash+byte_tokens+words=8\", context_window: "
    "1000000, "
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

  // A tenant of its own with $10 of credit sends `text` (its first word a
  // marker) to `model` without max_tokens: what the vendor was sent. $10
  // covers 4,096 tokens of output, so nothing is clamped.
  static json sent_with_credit(const std::string& name, const std::string& model, const std::string& text) {
    const auto key = tenant(name);
    EXPECT_EQ(gw().cli({"credits", "top-up", "--tenant", name, "--amount", "10"}).exit_code, 0);
    json b = body(text);
    b["model"] = model;
    const auto r = chat(key.key, b);
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_FALSE(r.has_header("x-max-tokens-clamped")) << "$10 covers the default output";
    const json sent = stack_->fake->find_request(text.substr(0, text.find(' ')));
    EXPECT_FALSE(sent.is_null()) << "no request upstream for " << text;
    return sent;
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

// The hold counts a prompt by its cheap upper bound (a token per byte) first;
// where that bound would refuse a request its exact count fits, the exact
// count decides. "a b c ..." is a token per two bytes: 60 letters are at
// most 95 tokens, and 100 tokens of credit hold them and 5 of output, where
// their 120 bytes and 5 would not fit. (The prompt is a system message: the
// fake vendor echoes the user's words, two here, within max_tokens.)
TEST_F(SpendControlTest, APromptWhoseBoundWouldNotFitIsHeldForItsExactCount) {
  const auto key = tenant("bound-fallback");
  ASSERT_EQ(gw().cli({"credits", "top-up", "--tenant", "bound-fallback", "--amount", "0.1"}).exit_code, 0);
  auto letters = [](int n) {
    std::string text;
    for (int i = 0; i < n; ++i) text.append(1, static_cast<char>('a' + i % 26)).append(" ");
    return text;
  };
  auto with_system = [](const std::string& system) {
    return json{{"model", "pricey"},
                {"max_tokens", 5},
                {"messages", json::array({json{{"role", "system"}, {"content", system}},
                                          json{{"role", "user"}, {"content", "hi"}}})}};
  };
  const auto r = chat(key.key, with_system(letters(60)));
  ASSERT_EQ(r.status, 200) << r.body;
  // And a request whose exact count does not fit is still refused.
  EXPECT_TRUE(IsApiError(chat(key.key, with_system(letters(200))), 402, "invalid_request_error",
                         "insufficient_credits"));
}

// A model with a window and no output limit of its own is told what the
// window leaves after the prompt, up to budget.default_output_tokens. The
// prompt's cheap bound leaves less than its exact count does: where that
// would tell the model a smaller limit, the exact count decides. The prompt
// is about 70 tokens exactly and 161 by the bound (a token per byte): the
// window of 4,176 leaves the whole default of 4,096 only to the exact count.
TEST_F(SpendControlTest, AWindowShortenedOnlyByThePromptsBoundGivesTheDefaultOutput) {
  std::string letters;
  for (int i = 0; i < 60; ++i) letters.append(1, static_cast<char>('a' + i % 26)).append(" ");
  const json sent = sent_with_credit("bound-window", "pricey-window", "window-bound " + letters);
  ASSERT_TRUE(sent.is_object());
  EXPECT_EQ(sent["body"]["max_tokens"], 4096) << "the window minus the exact prompt passes the default";
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

// The Responses API sent natively is held and told its limit the same way,
// in that API's own member: the vendor cannot spend past the hold.
TEST_F(SpendControlTest, ANativeResponsesRequestIsClampedInMaxOutputTokens) {
  const auto key = tenant("budget-native");
  ASSERT_EQ(
      gw().cli({"budgets", "create", "--tenant", "budget-native", "--window", "month", "--limit", "0.05"})
          .exit_code,
      0);
  const std::string marker = "clamp-native-please";
  const auto r =
      post_responses(port(), key.key, {{"model", "pricey-native"}, {"input", marker}, {"store", false}});
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_TRUE(r.has_header("x-max-tokens-clamped"));
  const std::int64_t clamped = std::stoll(r.header("x-max-tokens-clamped"));
  EXPECT_LT(clamped, 50);
  const json sent = stack_->fake->find_request(marker);
  ASSERT_FALSE(sent.is_null());
  EXPECT_EQ(sent["path"], "/v1/responses");
  EXPECT_EQ(sent["body"]["max_output_tokens"], clamped) << sent.dump();
  EXPECT_FALSE(sent["body"].contains("max_tokens"));
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
  // A slow stream holds its prompt and 250 tokens of output while it runs.
  json slow = body("most of the minute", 250);
  slow["model"] = "pricey-slow";
  slow["stream"] = true;
  SseStream first(port(), key.key, slow.dump(), 10s);
  ASSERT_EQ(first.status(), 200);
  ASSERT_TRUE(first.next().has_value()) << first.error();
  auto second = chat(key.key, body("the rest of it", 250));
  EXPECT_TRUE(IsApiError(second, 429, "rate_limit_error", "rate_limit_exceeded")) << second.body;
  EXPECT_NE(second.json()["error"]["message"].get<std::string>().find("tokens per minute"),
            std::string::npos);
}

// A max_tokens no minute of the limit can ever hold is the client's to
// lower: 422 naming max_tokens, not a 429 that comes back every minute.
TEST_F(SpendControlTest, AMaxTokensPastTheTokensPerMinuteLimitIs422NamingIt) {
  const auto key = tenant("tpm-never");
  set_rate_limits("tpm-never", {{"tenant_tokens_per_minute", 300}});
  const std::string marker = "never-fits-the-minute";
  auto big = chat(key.key, body(marker, 400));
  EXPECT_TRUE(IsApiError(big, 422, "invalid_request_error", "max_tokens_exceeds_rate_limit", "max_tokens"))
      << big.body;
  const std::string message = big.json()["error"]["message"];
  EXPECT_NE(message.find("set max_tokens to at most "), std::string::npos) << message;
  EXPECT_EQ(big.header("retry-after"), "") << "retrying cannot help";
  EXPECT_TRUE(stack_->fake->find_request(marker).is_null());
}

// Without max_tokens a request is held for the model's whole output (1000
// here), more than a 500-token minute: the output is clamped to what the
// minute leaves, and the vendor is told, as a budget does.
TEST_F(SpendControlTest, AnUnsetMaxTokensIsClampedToTheTokensPerMinuteLimit) {
  const auto key = tenant("tpm-clamp");
  set_rate_limits("tpm-clamp", {{"tenant_tokens_per_minute", 500}});
  wait_for_fresh_minute();
  const std::string marker = "clamp-to-the-minute";
  const auto r = chat(key.key, body(marker));
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_TRUE(r.has_header("x-max-tokens-clamped"));
  const std::int64_t clamped = std::stoll(r.header("x-max-tokens-clamped"));
  EXPECT_GE(clamped, 16);
  EXPECT_LT(clamped, 500);
  const json sent = stack_->fake->find_request(marker);
  ASSERT_FALSE(sent.is_null());
  EXPECT_EQ(sent["body"]["max_tokens"], clamped) << sent.dump();
}

// n asks for n completions, each up to max_tokens, and the vendor bills
// every one: the hold covers n times the output.
TEST_F(SpendControlTest, NMultipliesTheHold) {
  const auto key = tenant("n-hold");
  // About 10 prompt tokens + 10 output: one completion costs ~$0.02.
  ASSERT_EQ(gw().cli({"credits", "top-up", "--tenant", "n-hold", "--amount", "0.03"}).exit_code, 0);
  const std::string marker = "n-times-the-output";
  json b = body(marker, 10);
  b["n"] = 4;
  const auto r = chat(key.key, b);
  EXPECT_TRUE(IsApiError(r, 402, "invalid_request_error", "insufficient_credits")) << r.body;
  EXPECT_TRUE(stack_->fake->find_request(marker).is_null()) << "refused before the upstream call";
  b["n"] = 1;
  ASSERT_EQ(chat(key.key, b).status, 200);
}

TEST_F(SpendControlTest, NCompletionsAreSettledFromWhatTheVendorReports) {
  const auto key = tenant("n-settle");
  ASSERT_EQ(gw().cli({"credits", "top-up", "--tenant", "n-settle", "--amount", "1"}).exit_code, 0);
  const std::string text = "three answers please";
  json b = body(text, 10);
  b["n"] = 3;
  const auto r = chat(key.key, b);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["choices"].size(), 3u);
  const json one = fake_usage(user_messages(text), fake_reply(user_messages(text)));
  const std::int64_t completion = 3 * one["completion_tokens"].get<std::int64_t>();
  const json rec = usage_after(key.key, 1)["data"][0];
  EXPECT_EQ(rec["completion_tokens"], completion);
  const std::int64_t cost = (one["prompt_tokens"].get<std::int64_t>() + completion) * 1000;
  EXPECT_EQ(rec["cost_micros"], cost);
  EXPECT_EQ(budgets_when_spent(key.key, cost, true)["credit"]["spent_micros"], cost);
}

TEST_F(SpendControlTest, NPastTheConfiguredBoundOrNotAPositiveIntegerIs400) {
  const auto key = tenant("n-bound");
  const std::string marker = "one-hundred-and-twenty-eight";
  for (const json& n : {json(128), json(9), json(0), json(-1), json("2"), json(1.5)}) {
    json b = body(marker, 10);
    b["n"] = n;
    const auto r = chat(key.key, b);
    EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_parameter", "n")) << n << ": " << r.body;
  }
  EXPECT_TRUE(stack_->fake->find_request(marker).is_null());
  json b = body(marker, 10);
  b["n"] = 8;  // budget.max_choices' default
  EXPECT_EQ(chat(key.key, b).status, 200);
}

// A request without max_tokens is held for budget.default_output_tokens
// (4096), not the model's 100,000: one such request cannot hold a budget
// that would pay for many.
TEST_F(SpendControlTest, AnUnsetMaxTokensHoldsTheConfiguredDefaultNotTheModelsWholeOutput) {
  const json sent = sent_with_credit("default-hold", "pricey-long", "default-output-hold");
  ASSERT_TRUE(sent.is_object());
  EXPECT_EQ(sent["body"]["max_tokens"], 4096) << sent.dump();
}

// Text whose tokens a vendor counts far above the estimate: the hold is an
// upper bound all the same, so concurrent requests never spend past the
// credit, and no settle ever passes its hold.
TEST_F(SpendControlTest, EstimatedPromptsAreHeldForTheirUpperBoundInEveryScript) {
  std::string random_text;
  std::uint32_t x = 12345;
  for (int i = 0; i < 600; ++i) {  // code points of every UTF-8 length
    x = x * 1103515245u + 12345u;
    const std::uint32_t pick = (x >> 8) % 4;
    const char32_t cp = pick == 0   ? 0x21 + (x >> 12) % 94
                        : pick == 1 ? 0x100 + (x >> 12) % 0x6FF
                        : pick == 2 ? 0x4E00 + (x >> 12) % 0x5000
                                    : 0x1F300 + (x >> 12) % 0x2FF;
    if (cp < 0x80) {
      random_text.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      random_text.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      random_text.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      random_text.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      random_text.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      random_text.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      random_text.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      random_text.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      random_text.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      random_text.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }
  auto repeat = [](const std::string& unit, int times) {
    std::string out;
    for (int i = 0; i < times; ++i) out += unit;
    return out;
  };
  const std::vector<std::pair<std::string, std::string>> scripts = {
      {"arabic", repeat("\u0645\u0631\u062d\u0628\u0627 ", 60)},
      {"cjk", repeat("\u4f60\u597d\u4e16\u754c", 80)},
      {"emoji", repeat("\U0001F600\U0001F680\u2764\uFE0F", 60)},
      {"json", repeat("{\"k\":[1,2,{\"x\":null}]},", 40)},
      {"random", random_text},
  };
  const std::string before = http_get(port(), "/metrics").body;
  EXPECT_NE(before.find("modelgw_spend_settled_over_hold_total 0"), std::string::npos);
  int served = 0;
  for (const char* model : {"pricey-claude", "pricey-gemini"}) {
    for (const auto& [name, text] : scripts) {
      const std::string tenant_name = std::string("bound-") + (model[7] == 'c' ? "c-" : "g-") + name;
      const auto key = tenant(tenant_name);
      ASSERT_EQ(gw().cli({"credits", "top-up", "--tenant", tenant_name, "--amount", "100"}).exit_code, 0);
      json b = body(text, 16);
      b["model"] = model;
      const auto r = chat(key.key, b);
      ASSERT_EQ(r.status, 200) << model << " " << name << ": " << r.body;
      ++served;
    }
  }
  const std::string after = http_get(port(), "/metrics").body;
  EXPECT_NE(after.find("modelgw_spend_settled_over_hold_total 0"), std::string::npos)
      << "a vendor counted more than the hold covered, after " << served << " requests";
  EXPECT_FALSE(gw().wait_log("was held (a vendor counted", 200ms))
      << "no settle logged past its hold: "
      << ::testing::PrintToString(lines_containing(gw().log(), "was held"));
}

TEST_F(SpendControlTest, ConcurrentEstimatedRequestsNeverSpendPastTheCredit) {
  const auto key = tenant("bound-race");
  ASSERT_EQ(gw().cli({"credits", "top-up", "--tenant", "bound-race", "--amount", "5"}).exit_code, 0);
  std::string arabic;
  for (int i = 0; i < 400; ++i) arabic += "\u0633\u0644\u0627\u0645 ";  // 2,000 characters
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  for (int i = 0; i < 20; ++i) {
    clients.emplace_back([&, i] {
      json b = body(arabic + std::to_string(i), 16);
      b["model"] = "pricey-claude";
      if (chat(key.key, b).status == 200) ++ok;
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_GE(ok.load(), 1);
  const json page = usage_after(key.key, 20);
  const std::int64_t cost = page["totals"]["cost_micros"];
  EXPECT_LE(cost, 5'000'000) << ok.load() << " requests served";
  const json credit = budgets_when_spent(key.key, cost, true)["credit"];
  EXPECT_EQ(credit["spent_micros"], cost);
  EXPECT_LE(credit["spent_micros"].get<std::int64_t>(), 5'000'000);
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

TEST_F(SpendControlTest, EveryRecordSaysItsOperationAndUsageFiltersByIt) {
  const auto key = tenant("operations");
  const auto r = chat(key.key, body("which api", 5));
  ASSERT_EQ(r.status, 200);
  const std::string id = r.header("x-request-id");
  const json all = usage_after(key.key, 1);
  ASSERT_EQ(all["data"].size(), 1u) << all.dump();
  EXPECT_EQ(all["data"][0]["request_id"], id);
  EXPECT_EQ(all["data"][0]["operation"], "chat.completions");
  const json chat_only = http_get(port(), "/v1/usage?operation=chat.completions", key.key).json();
  ASSERT_EQ(chat_only["data"].size(), 1u) << chat_only.dump();
  EXPECT_EQ(chat_only["data"][0]["request_id"], id);
  EXPECT_EQ(chat_only["totals"]["requests"], 1);
  const json responses = http_get(port(), "/v1/usage?operation=responses", key.key).json();
  EXPECT_EQ(responses["data"], json::array()) << responses.dump();
  EXPECT_EQ(responses["totals"]["requests"], 0);
  const json grouped = http_get(port(), "/v1/usage?operation=responses&group_by=model", key.key).json();
  EXPECT_EQ(grouped["data"], json::array()) << grouped.dump();
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/usage?operation=BAD!", key.key), 400, "invalid_request_error",
                         "invalid_parameter", "operation"));
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/usage?operation=", key.key), 400, "invalid_request_error",
                         "invalid_parameter", "operation"));
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

// One tenant scanning its records, however hard, neither delays another
// tenant's chat (the scans run on threads of their own) nor runs more than
// server.max_queries_per_tenant scans at once (429 with Retry-After past it).
TEST_F(SpendControlTest, OneTenantsUsageScansAreBoundedAndDoNotDelayOthers) {
  const auto scanner = tenant("scanner");
  const auto bystander = tenant("bystander");
  const auto id = stack_->usage().tenant_id("scanner");
  ASSERT_TRUE(id.has_value());
  stack_->usage().exec(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) "
      "INSERT INTO usage_records (request_id, tenant_id, key_id, alias, provider, upstream_model, "
      "prompt_tokens, completion_tokens, total_tokens, http_status, error_code, latency_us, ttft_us, "
      "streamed, "
      "created_unix_ms) SELECT 'req_seed' || i, " +
      std::to_string(*id) + ", 0, 'pricey', 'openai', 'gpt-4o-mini', 10, 5, 15, 200, '', 1000, 0, 0, " +
      std::to_string(unix_ms_now()) + " - i FROM n");
  std::atomic<int> ok{0};
  std::atomic<int> busy{0};
  std::atomic<int> wrong{0};
  std::vector<std::thread> scans;
  for (int t = 0; t < 12; ++t) {
    scans.emplace_back([&] {
      for (int i = 0; i < 4; ++i) {
        const auto r = http_get(port(), "/v1/usage?model=pricey&status=success&group_by=day", scanner.key);
        if (r.status == 200) {
          ++ok;
        } else if (IsApiError(r, 429, "rate_limit_error", "rate_limit_exceeded") &&
                   r.header("retry-after") == "1") {
          ++busy;
        } else {
          ++wrong;
        }
      }
    });
  }
  std::vector<std::chrono::milliseconds> waits;
  for (int i = 0; i < 5; ++i) {
    const auto started = std::chrono::steady_clock::now();
    EXPECT_EQ(chat(bystander.key, body("meanwhile " + std::to_string(i), 10)).status, 200);
    waits.push_back(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started));
  }
  for (auto& s : scans) s.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(ok.load(), 0);
  EXPECT_GT(busy.load(), 0) << "12 clients scanning at once, none was told to wait";
  for (const auto w : waits) EXPECT_LT(w, 2000ms) << "another tenant's chat waited on the scans";
}

}  // namespace
}  // namespace it
