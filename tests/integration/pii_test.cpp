// The PII policy end to end, per tenant: flag (the config's default), block
// and mask set through the internal surface and the CLI, the allow-list, plain
// and streamed requests, values outside the messages (user, stop, names, tool
// schemas), the usage record and the audit line, and hostile input. What the fake upstream received shows
// what left the gateway; the gateway's log and records must never hold a planted value.
#include "harness/checks.h"
#include "harness/stack.h"

#include <map>
#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;

// Planted values. Each test uses its own marker so it finds its own request.
constexpr const char* kCard = "4111 1111 1111 1111";
constexpr const char* kSsn = "123-45-6789";
constexpr const char* kEmail = "jane.roe@example.org";

class PiiTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    try {
      GatewayOptions o;
      o.max_body_bytes = 16u << 20;  // room for the 10 MB input
      o.pii_yaml = "pii:\n  default_mode: flag\n";
      o.catalog.push_back({"gpt-native", "openai-native", "gpt-4o-mini"});
      o.catalog.push_back({"claude", "anthropic", "claude-sonnet-4-5"});
      o.extra_catalog_yaml =
          "  emb: { provider: openai, model: text-embedding-3-small, kind: embedding, dimensions: 1536,"
          " prices: { input: 0.02, output: 0 } }\n";
      stack_ = start_stack(o);
      const auto& gw = *stack_->gateway;
      admin_key_ = gw.create_key("acme", "admin").key;
      for (const char* tenant : {"blocker", "masker", "quiet"}) {
        gw.create_tenant(tenant);
        tenant_keys_[tenant] = gw.create_key(tenant).key;
      }
      set_policy("blocker", {{"mode", "block"}});
      set_policy("masker", {{"mode", "mask"}, {"allow", {"help@acme.example"}}});
      set_policy("quiet", {{"mode", "off"}});
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() { stack_.reset(); }

 protected:
  void SetUp() override { ASSERT_NE(stack_, nullptr) << "suite setup failed: " << setup_error_; }

  static HttpResponse admin(const std::string& method, const std::string& path, const std::string& body) {
    HttpRequest r;
    r.method = method;
    r.path = path;
    r.body = body;
    r.headers.emplace_back("Authorization", "Bearer " + admin_key_);
    return http_call(stack_->port(), r);
  }
  static void set_policy(const std::string& tenant, const json& pii) {
    auto r = admin("PATCH", "/internal/v1/tenants/" + tenant + "/settings", json{{"pii", pii}}.dump());
    if (r.status != 200) throw std::runtime_error("setting the PII policy failed: " + r.body);
  }
  static HttpResponse chat(const std::string& tenant, const json& messages, bool stream = false) {
    const std::string& k = tenant == "acme" ? stack_->key.key : tenant_keys_.at(tenant);
    json body = {{"model", "gpt-4o-mini"}, {"messages", messages}};
    if (stream) body["stream"] = true;
    return post_chat(stack_->port(), k, body.dump());
  }
  static json user(const std::string& text) { return json::array({{{"role", "user"}, {"content", text}}}); }
  static UsageRecord record_of(const HttpResponse& r) {
    auto rec = stack_->usage().wait_for(r.header("x-request-id"));
    if (!rec) throw std::runtime_error("no usage record for " + r.header("x-request-id"));
    return *rec;
  }
  // The gateway's log and the store hold none of the planted values.
  static void expect_no_value_leaked(const std::vector<std::string>& values) {
    const std::string log = stack_->gateway->log();
    for (const auto& v : values) EXPECT_EQ(log.find(v), std::string::npos) << "the log holds " << v;
  }

  static inline std::unique_ptr<Stack> stack_;
  static inline std::string setup_error_;
  static inline std::string admin_key_;
  static inline std::map<std::string, std::string> tenant_keys_;
};

TEST_F(PiiTest, TheDefaultFlagModePassesTheRequestAndRecordsCategoriesOnly) {
  auto r = chat("acme", user("flag-marker: mail me at " + std::string(kEmail) + ", SSN " + kSsn));
  ASSERT_EQ(r.status, 200) << r.body;
  const json sent = stack_->fake->find_request("flag-marker");
  ASSERT_FALSE(sent.is_null());
  EXPECT_NE(sent["body"]["messages"][0]["content"].get<std::string>().find(kEmail), std::string::npos)
      << "flag changes nothing";
  const auto rec = record_of(r);
  EXPECT_EQ(rec.pii_action, "flagged");
  EXPECT_EQ(rec.pii_findings, R"({"email":1,"ssn":1})");
  ASSERT_TRUE(stack_->gateway->wait_log("audit: pii.flagged request=" + r.header("x-request-id"), 5s))
      << stack_->gateway->log();
  expect_no_value_leaked({kEmail, kSsn});
}

// Tried as an attacker would: a member name given twice in one object. The
// gateway reads the last value (as nlohmann and most parsers do) and finds
// it clean; a vendor whose parser takes the first would read the card. The
// body goes upstream as the gateway read it, so no reader sees the first.
TEST_F(PiiTest, AMemberGivenTwiceGoesUpstreamAsTheGatewayReadIt) {
  const std::string card_first = R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"card )" +
                                 std::string(kCard) + R"(","content":"dup-key-marker-1 hello"}]})";
  auto r = post_chat(stack_->port(), tenant_keys_.at("blocker"), card_first);
  ASSERT_EQ(r.status, 200) << r.body;
  json sent = stack_->fake->find_request("dup-key-marker-1");
  ASSERT_TRUE(sent.is_object());
  EXPECT_FALSE(sent.contains("raw")) << "the vendor got a name twice: " << sent.value("raw", "");
  EXPECT_EQ(sent.dump().find("4111"), std::string::npos) << sent.dump();

  // The same through a native door, whose request is otherwise sent as written.
  HttpRequest native;
  native.method = "POST";
  native.path = "/v1/messages";
  native.body = R"({"model":"claude","max_tokens":16,"messages":[{"role":"user","content":"card )" +
                std::string(kCard) + R"(","content":"dup-key-marker-2 hello"}]})";
  native.headers = {{"x-api-key", tenant_keys_.at("blocker")}, {"anthropic-version", "2023-06-01"}};
  r = http_call(stack_->port(), native);
  ASSERT_EQ(r.status, 200) << r.body;
  sent = stack_->fake->find_request("dup-key-marker-2");
  ASSERT_TRUE(sent.is_object());
  EXPECT_EQ(sent["path"], "/v1/messages");
  EXPECT_FALSE(sent.contains("raw")) << "the vendor got a name twice: " << sent.value("raw", "");
  EXPECT_EQ(sent.dump().find("4111"), std::string::npos) << sent.dump();
  expect_no_value_leaked({kCard});
}

TEST_F(PiiTest, BlockRefusesACriticalValueWith422AndNeverSendsIt) {
  json messages = json::array({{{"role", "system"}, {"content", "block-marker-1: be brief"}},
                               {{"role", "user"}, {"content", std::string("my card is ") + kCard}}});
  auto r = chat("blocker", messages);
  EXPECT_TRUE(IsApiError(r, 422, "invalid_request_error", "pii_detected", "messages[1].content"));
  EXPECT_NE(r.json()["error"]["message"].get<std::string>().find("payment_card"), std::string::npos)
      << r.body;
  EXPECT_EQ(r.body.find("4111"), std::string::npos) << "the error must not echo the value";
  EXPECT_TRUE(stack_->fake->find_request("block-marker-1").is_null())
      << "a blocked request reached the vendor";
  const auto rec = record_of(r);
  EXPECT_EQ(rec.http_status, 422);
  EXPECT_EQ(rec.error_code, "pii_detected");
  EXPECT_EQ(rec.pii_action, "blocked");
  EXPECT_EQ(rec.pii_findings, R"({"payment_card":1})");
  ASSERT_TRUE(stack_->gateway->wait_log("audit: pii.blocked request=" + r.header("x-request-id"), 5s));
  EXPECT_NE(stack_->gateway->log().find("param=messages[1].content"), std::string::npos);
  expect_no_value_leaked({kCard, "4111111111111111"});
}

TEST_F(PiiTest, BlockLetsNonCriticalFindingsThroughFlagged) {
  auto r = chat("blocker", user("block-marker-2: write to " + std::string(kEmail)));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(stack_->fake->find_request("block-marker-2").is_null());
  EXPECT_EQ(record_of(r).pii_action, "flagged");
}

TEST_F(PiiTest, BlockFindsValuesInToolCallArgumentsAndContentParts) {
  json messages = json::array(
      {{{"role", "user"}, {"content", json::array({{{"type", "text"}, {"text", "block-marker-3"}}})}},
       {{"role", "assistant"},
        {"content", nullptr},
        {"tool_calls",
         json::array({{{"id", "call_1"},
                       {"type", "function"},
                       {"function", {{"name", "pay"}, {"arguments", json{{"card", kCard}}.dump()}}}}})}},
       {{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "ok"}}});
  auto r = chat("blocker", messages);
  EXPECT_TRUE(IsApiError(r, 422, "invalid_request_error", "pii_detected",
                         "messages[1].tool_calls[0].function.arguments"));
  json parts =
      json::array({{{"role", "user"},
                    {"content", json::array({{{"type", "text"}, {"text", "hello"}},
                                             {{"type", "text"}, {"text", std::string("SSN ") + kSsn}}})}}});
  EXPECT_TRUE(IsApiError(chat("blocker", parts), 422, "invalid_request_error", "pii_detected",
                         "messages[0].content[1].text"));
}

// Every string the upstream sees is scanned, not only the messages: `user`,
// `stop`, message names, tool descriptions and their parameter schemas.
TEST_F(PiiTest, BlockFindsACardInUserAndInAToolParameterDescription) {
  const std::string& key = tenant_keys_.at("blocker");
  json body = {{"model", "gpt-4o-mini"}, {"messages", user("block-marker-5: hello")}, {"user", kCard}};
  auto r = post_chat(stack_->port(), key, body.dump());
  EXPECT_TRUE(IsApiError(r, 422, "invalid_request_error", "pii_detected", "user")) << r.body;
  EXPECT_EQ(r.body.find("4111"), std::string::npos) << "the error must not echo the value";

  const json tool = {
      {"type", "function"},
      {"function",
       {{"name", "pay"},
        {"description", "Charge the customer's card"},
        {"parameters",
         {{"type", "object"},
          {"properties",
           {{"card", {{"type", "string"}, {"description", std::string("the card, e.g. ") + kCard}}}}}}}}}};
  body = {
      {"model", "gpt-4o-mini"}, {"messages", user("block-marker-6: pay")}, {"tools", json::array({tool})}};
  r = post_chat(stack_->port(), key, body.dump());
  EXPECT_TRUE(IsApiError(r, 422, "invalid_request_error", "pii_detected",
                         "tools[0].function.parameters.properties.card.description"))
      << r.body;
  const auto rec = record_of(r);
  EXPECT_EQ(rec.pii_action, "blocked");
  EXPECT_EQ(rec.pii_findings, R"({"payment_card":1})");
  ASSERT_TRUE(stack_->gateway->wait_log("audit: pii.blocked request=" + r.header("x-request-id"), 5s));
  EXPECT_NE(stack_->gateway->log().find("param=tools[0].function.parameters.properties.card.description"),
            std::string::npos);
  EXPECT_TRUE(stack_->fake->find_request("block-marker-5").is_null())
      << "a blocked request reached the vendor";
  EXPECT_TRUE(stack_->fake->find_request("block-marker-6").is_null())
      << "a blocked request reached the vendor";
  expect_no_value_leaked({kCard, "4111111111111111"});
}

TEST_F(PiiTest, MaskReplacesAnEmailInStopAndInAMessageName) {
  json messages = json::array({{{"role", "user"}, {"name", kEmail}, {"content", "mask-marker-3: hello"}}});
  json body = {{"model", "gpt-4o-mini"},
               {"messages", messages},
               {"stop", json::array({"END", std::string("reply to ") + kEmail})},
               {"user", "user-42"}};
  auto r = post_chat(stack_->port(), tenant_keys_.at("masker"), body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const json sent = stack_->fake->find_request("mask-marker-3");
  ASSERT_FALSE(sent.is_null());
  EXPECT_EQ(sent["body"]["messages"][0]["name"], "[EMAIL_1]");
  EXPECT_EQ(sent["body"]["messages"][0]["content"], "mask-marker-3: hello");
  EXPECT_EQ(sent["body"]["stop"], json::array({"END", "reply to [EMAIL_1]"}));
  EXPECT_EQ(sent["body"]["user"], "user-42") << "clean members go as sent";
  EXPECT_EQ(sent["body"].dump().find(kEmail), std::string::npos);
  const auto rec = record_of(r);
  EXPECT_EQ(rec.pii_action, "masked");
  EXPECT_EQ(rec.pii_findings, R"({"email":2})");
  expect_no_value_leaked({kEmail});
}

TEST_F(PiiTest, MaskSendsPlaceholdersUpstreamNeverTheValue) {
  json messages = json::array(
      {{{"role", "user"}, {"content", "mask-marker-1: I am " + std::string(kEmail) + ", card " + kCard}},
       {{"role", "assistant"}, {"content", "Noted."}},
       {{"role", "user"}, {"content", "Again: " + std::string(kEmail) + ". Support is help@acme.example."}}});
  auto r = chat("masker", messages);
  ASSERT_EQ(r.status, 200) << r.body;
  const json sent = stack_->fake->find_request("mask-marker-1");
  ASSERT_FALSE(sent.is_null());
  const json& m = sent["body"]["messages"];
  EXPECT_EQ(m[0]["content"], "mask-marker-1: I am [EMAIL_1], card [PAYMENT_CARD_1]");
  EXPECT_EQ(m[2]["content"], "Again: [EMAIL_1]. Support is help@acme.example.") << "allow-listed values stay";
  EXPECT_EQ(sent["body"].dump().find(kEmail), std::string::npos);
  const auto rec = record_of(r);
  EXPECT_EQ(rec.pii_action, "masked");
  EXPECT_EQ(rec.pii_findings, R"({"email":2,"payment_card":1})");
  expect_no_value_leaked({kEmail, kCard});
}

TEST_F(PiiTest, MaskAppliesToStreamedRequestsToo) {
  auto r = chat("masker", user("mask-marker-2: SSN " + std::string(kSsn)), /*stream=*/true);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find("data: [DONE]"), std::string::npos);
  const json sent = stack_->fake->find_request("mask-marker-2");
  ASSERT_FALSE(sent.is_null());
  EXPECT_EQ(sent["body"]["messages"][0]["content"], "mask-marker-2: SSN [SSN_1]");
  EXPECT_EQ(record_of(r).pii_action, "masked");
}

TEST_F(PiiTest, FilledPromptVariablesAreScannedLikeAnyText) {
  const json spec = {{"template", {{{"role", "user"}, {"content", "prompt-marker: reply to {{customer}}"}}}},
                     {"model", "gpt-4o-mini"}};
  auto added = admin("POST", "/internal/v1/tenants/masker/prompts/reply/versions", spec.dump());
  ASSERT_EQ(added.status, 201) << added.body;
  const json body = {{"prompt", {{"name", "reply"}, {"variables", {{"customer", kEmail}}}}}};
  auto r = post_chat(stack_->port(), tenant_keys_.at("masker"), body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const json sent = stack_->fake->find_request("prompt-marker");
  ASSERT_FALSE(sent.is_null());
  EXPECT_EQ(sent["body"]["messages"][0]["content"], "prompt-marker: reply to [EMAIL_1]");
  const auto rec = record_of(r);
  EXPECT_EQ(rec.pii_action, "masked");
  EXPECT_EQ(rec.prompt_name, "reply");
}

TEST_F(PiiTest, OffScansNothing) {
  auto r = chat("quiet", user("off-marker: card " + std::string(kCard)));
  ASSERT_EQ(r.status, 200) << r.body;
  const auto rec = record_of(r);
  EXPECT_EQ(rec.pii_action, "");
  EXPECT_EQ(rec.pii_findings, "");
}

TEST_F(PiiTest, APolicyChangedWithTheCliReachesTheRunningGateway) {
  stack_->gateway->create_tenant("switcher");
  const auto key = stack_->gateway->create_key("switcher").key;
  auto set =
      stack_->gateway->cli({"tenants", "settings", "switcher", "--set", R"({"pii":{"mode":"block"}})"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  // The gateway caches settings for key_cache_ttl_ms (100 ms here): poll, bounded.
  HttpResponse r;
  for (int i = 0; i < 50; ++i) {
    r = post_chat(stack_->port(), key,
                  json{{"model", "gpt-4o-mini"}, {"messages", user(std::string("SSN ") + kSsn)}}.dump());
    if (r.status == 422) break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(IsApiError(r, 422, "invalid_request_error", "pii_detected", "messages[0].content"));
  auto bad =
      stack_->gateway->cli({"tenants", "settings", "switcher", "--set", R"({"pii":{"mode":"redact"}})"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("settings.pii: mode: 'redact' is not a loaded mode"), std::string::npos) << bad.err;
}

TEST_F(PiiTest, InvalidPolicySettingsAreRefusedNamingTheMember) {
  auto r = admin("PATCH", "/internal/v1/tenants/acme/settings", R"({"pii":{"critical":["passport"]}})");
  EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_parameter", "settings.pii"));
  r = admin("PATCH", "/internal/v1/tenants/acme/settings", R"({"pii":{"allow":"a@b.io"}})");
  EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_parameter", "settings.pii"));
  r = admin("PATCH", "/internal/v1/tenants/acme/settings", R"({"pii":"mask"})");
  EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_parameter", "settings.pii"));
}

TEST_F(PiiTest, HostileInputGetsACleanAnswerAndNeverCrashesTheGateway) {
  // 10 MB of digits: scanned (nothing found: not a card, not a phone), then
  // refused by the model's context window, in the envelope.
  auto digits = chat("blocker", user(std::string(10u << 20, '7')));
  EXPECT_TRUE(IsApiError(digits, 422, "invalid_request_error", "context_length_exceeded", "messages"));
  EXPECT_EQ(record_of(digits).pii_action, "");
  // 10,000 messages.
  json many = json::array();
  for (int i = 0; i < 10000; ++i)
    many.push_back({{"role", "user"}, {"content", "line " + std::to_string(i)}});
  EXPECT_EQ(chat("masker", many).status, 200);
  // NUL bytes around a value are masked around, not dropped.
  auto nul = chat("masker", user(std::string("nul-marker \0 ", 13) + kEmail));
  ASSERT_EQ(nul.status, 200) << nul.body;
  EXPECT_EQ(stack_->fake->find_request("nul-marker")["body"]["messages"][0]["content"],
            std::string("nul-marker \0 [EMAIL_1]", 22));
  // Invalid UTF-8 is not JSON: refused before any scan.
  const std::string bad_utf8 =
      std::string(R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"\xff\xfe )") + kSsn +
      "\"}]}";
  auto r = post_chat(stack_->port(), tenant_keys_.at("blocker"), bad_utf8);
  EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_json"));
  EXPECT_EQ(r.body.find("6789"), std::string::npos);
  // A content part of a type the gateway does not know is scanned if it has text.
  json odd = json::array(
      {{{"role", "user"},
        {"content", json::array({{{"type", "mystery"}, {"text", std::string("SSN ") + kSsn}}})}}});
  auto o = chat("blocker", odd);
  EXPECT_TRUE(o.status == 422 || o.status == 400) << o.body;
  EXPECT_EQ(o.body.find("6789"), std::string::npos);
  expect_no_value_leaked({kSsn, kCard, kEmail});
  EXPECT_TRUE(stack_->gateway->running());
}

}  // namespace
}  // namespace it

namespace it {
namespace {

// A tenant sending blocked text cannot grow the audit log (or do any work
// past its rate limit): refused requests count against the request rate,
// which is checked before the scan, and past a few a minute PII events are
// counted into one.
TEST_F(PiiTest, BlockedRequestsCountAgainstTheRateLimitAndDoNotFloodTheAuditLog) {
  const auto& gw = *stack_->gateway;
  gw.create_tenant("flooder");
  tenant_keys_["flooder"] = gw.create_key("flooder").key;
  set_policy("flooder", {{"mode", "block"}});
  auto limited = gw.cli(
      {"tenants", "settings", "flooder", "--set", R"({"rate_limits":{"tenant_requests_per_minute":5}})"});
  ASSERT_EQ(limited.exit_code, 0) << limited.err;
  std::this_thread::sleep_for(300ms);  // past the settings cache
  for (int i = 0; i < 60 && unix_ms_now() % 60000 > 45000; ++i) std::this_thread::sleep_for(500ms);
  int blocked = 0;
  int limited_429 = 0;
  const std::string text = std::string("card ").append(kCard);
  for (int i = 0; i < 40; ++i) {
    const auto r = chat("flooder", user(text));
    blocked += r.status == 422;
    limited_429 += r.status == 429;
  }
  EXPECT_EQ(blocked, 5) << "the rate limit counts blocked requests";
  EXPECT_EQ(limited_429, 35);
  const auto tenant = stack_->usage().tenant_id("flooder");
  ASSERT_TRUE(tenant.has_value());
  std::this_thread::sleep_for(300ms);  // past the audit writer's flush
  EXPECT_LE(stack_->usage().count_audit(*tenant, "pii.blocked"), 5);
}

TEST_F(PiiTest, FlaggedRequestsPastAFewAMinuteDoNotEachWriteAnAuditEvent) {
  const auto& gw = *stack_->gateway;
  gw.create_tenant("chatty");
  tenant_keys_["chatty"] = gw.create_key("chatty").key;
  for (int i = 0; i < 60 && unix_ms_now() % 60000 > 45000; ++i) std::this_thread::sleep_for(500ms);
  const std::string text = std::string("mail ").append(kEmail);
  for (int i = 0; i < 40; ++i) ASSERT_EQ(chat("chatty", user(text)).status, 200);
  const auto tenant = stack_->usage().tenant_id("chatty");
  ASSERT_TRUE(tenant.has_value());
  std::this_thread::sleep_for(300ms);
  EXPECT_LE(stack_->usage().count_audit(*tenant, "pii.flagged"), 10);
  EXPECT_GE(stack_->usage().count_audit(*tenant, "pii.flagged"), 1);
}

}  // namespace
}  // namespace it

namespace it {
namespace {

// POST /v1/responses goes through the same PII stage: every string the
// upstream will see (instructions, input items, function call outputs, tool
// and parameter descriptions) is scanned in the chat form it is sent in.

TEST_F(PiiTest, ResponsesBlockAValueInAFunctionCallOutputAndMaskInstructionsAndToolDescriptions) {
  const json blocked_input = json::array(
      {{{"role", "user"}, {"content", "resp-block-marker: pay"}},
       {{"type", "function_call"}, {"call_id", "c1"}, {"name", "pay"}, {"arguments", "{}"}},
       {{"type", "function_call_output"}, {"call_id", "c1"}, {"output", std::string("card ") + kCard}}});
  auto r = post_responses(stack_->port(), tenant_keys_.at("blocker"),
                          {{"model", "gpt-4o-mini"}, {"input", blocked_input}});
  EXPECT_TRUE(IsApiError(r, 422, "invalid_request_error", "pii_detected", "input")) << r.body;
  EXPECT_EQ(r.body.find("4111"), std::string::npos);
  EXPECT_TRUE(stack_->fake->find_request("resp-block-marker").is_null())
      << "a blocked request reached the vendor";

  const json to = {{"type", "string"}, {"description", std::string("e.g. ") + kEmail}};
  const json parameters = {{"type", "object"}, {"properties", {{"to", to}}}};
  const json tool = {{"type", "function"},
                     {"name", "notify"},
                     {"description", std::string("mails ") + kEmail},
                     {"parameters", parameters}};
  r = post_responses(stack_->port(), tenant_keys_.at("masker"),
                     {{"model", "gpt-4o-mini"},
                      {"instructions", std::string("resp-mask-marker: the owner is ") + kEmail},
                      {"input", "hello"},
                      {"tools", json::array({tool})}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json sent = stack_->fake->find_request("resp-mask-marker");
  ASSERT_TRUE(sent.is_object());
  EXPECT_EQ(sent["body"]["messages"][0]["content"], "resp-mask-marker: the owner is [EMAIL_1]");
  EXPECT_EQ(sent["body"]["tools"][0]["function"]["description"], "mails [EMAIL_1]");
  EXPECT_EQ(sent["body"]["tools"][0]["function"]["parameters"]["properties"]["to"]["description"],
            "e.g. [EMAIL_1]");
  EXPECT_EQ(sent["body"].dump().find(kEmail), std::string::npos);
  EXPECT_EQ(record_of(r).pii_action, "masked");
  // The kept turn holds what the vendor was sent: the placeholder, never the value.
  const std::string kept_id = r.json()["id"];
  EXPECT_EQ(r.json()["store"], true);
  HttpRequest items;
  items.method = "GET";
  items.path = "/v1/responses/" + kept_id + "/input_items";
  items.headers.emplace_back("Authorization", "Bearer " + tenant_keys_.at("masker"));
  const auto listed = http_call(stack_->port(), items);
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(listed.body.find(kEmail), std::string::npos) << listed.body;

  // Values the policy only flags go upstream, but are not kept: the response says store false.
  r = post_responses(stack_->port(), stack_->key.key,
                     {{"model", "gpt-4o-mini"}, {"input", std::string("resp-flag-marker ") + kEmail}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["store"], false);
  EXPECT_EQ(
      http_get(stack_->port(), "/v1/responses/" + r.json()["id"].get<std::string>(), stack_->key.key).status,
      404);
  expect_no_value_leaked({kEmail, kCard});
}

// A provider that serves the Responses API natively gets the client's own
// items, scanned with the same policy: masked where they stand, blocked
// before anything is sent.
TEST_F(PiiTest, ResponsesSentNativelyAreMaskedAndBlockedInTheirOwnItems) {
  const json tool = {{"type", "function"},
                     {"name", "notify"},
                     {"description", std::string("mails ") + kEmail},
                     {"parameters", {{"type", "object"}}}};
  const json input = json::array(
      {{{"type", "message"},
        {"role", "user"},
        {"content",
         json::array({{{"type", "input_text"}, {"text", std::string("native-mask-marker ") + kEmail}}})}},
       {{"type", "function_call"}, {"call_id", "c1"}, {"name", "notify"}, {"arguments", "{}"}},
       {{"type", "function_call_output"}, {"call_id", "c1"}, {"output", std::string("sent to ") + kEmail}}});
  auto r = post_responses(stack_->port(), tenant_keys_.at("masker"),
                          {{"model", "gpt-native"},
                           {"instructions", std::string("the owner is ") + kEmail},
                           {"input", input},
                           {"tools", json::array({tool})}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json sent = stack_->fake->find_request("native-mask-marker");
  ASSERT_TRUE(sent.is_object());
  EXPECT_EQ(sent["path"], "/v1/responses") << "the native provider got the Responses API";
  const json& body = sent["body"];
  EXPECT_EQ(body["instructions"], "the owner is [EMAIL_1]");
  EXPECT_EQ(body["input"][0]["content"][0]["text"], "native-mask-marker [EMAIL_1]");
  EXPECT_EQ(body["input"][2]["output"], "sent to [EMAIL_1]");
  EXPECT_EQ(body["tools"][0]["description"], "mails [EMAIL_1]");
  EXPECT_EQ(body.dump().find(kEmail), std::string::npos) << body.dump();
  EXPECT_EQ(record_of(r).pii_action, "masked");

  r = post_responses(
      stack_->port(), tenant_keys_.at("blocker"),
      {{"model", "gpt-native"},
       {"input",
        json::array({{{"role", "user"}, {"content", "native-block-marker"}},
                     {{"type", "function_call"}, {"call_id", "c1"}, {"name", "pay"}, {"arguments", "{}"}},
                     {{"type", "function_call_output"},
                      {"call_id", "c1"},
                      {"output", std::string("card ") + kCard}}})}});
  EXPECT_TRUE(IsApiError(r, 422, "invalid_request_error", "pii_detected", "input")) << r.body;
  EXPECT_TRUE(stack_->fake->find_request("native-block-marker").is_null())
      << "a blocked request reached the vendor";
  expect_no_value_leaked({kEmail, kCard});
}

// POST /v1/messages, sent natively to the anthropic plugin and translated
// for openai: the system blocks, a tool's description and a tool_result are
// masked where they stand; a card in a tool_result blocks, naming the
// Messages path; the signed thinking of an earlier turn is passed untouched.
TEST_F(PiiTest, MessagesAreMaskedAndBlockedInEveryBlockNativeOrTranslated) {
  auto messages = [&](const std::string& tenant, const json& body) {
    HttpRequest r;
    r.method = "POST";
    r.path = "/v1/messages";
    r.body = body.dump();
    r.headers = {{"x-api-key", tenant_keys_.at(tenant)}, {"anthropic-version", "2023-06-01"}};
    return http_call(stack_->port(), r);
  };
  const json tool = {{"name", "notify"},
                     {"description", std::string("mails ") + kEmail},
                     {"input_schema", {{"type", "object"}}}};
  for (const std::string model : {"claude", "gpt-4o-mini"}) {
    const std::string marker = "msg-mask-marker-" + model;
    const json turns = json::array(
        {{{"role", "user"}, {"content", marker + " write to " + kEmail}},
         {{"role", "assistant"},
          {"content",
           json::array(
               {{{"type", "thinking"}, {"thinking", "plan"}, {"signature", "sig-abc"}},
                {{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "notify"}, {"input", json::object()}}})}},
         {{"role", "user"},
          {"content", json::array({{{"type", "tool_result"},
                                    {"tool_use_id", "toolu_1"},
                                    {"content", std::string("sent to ") + kEmail}}})}}});
    auto r = messages(
        "masker", {{"model", model},
                   {"max_tokens", 64},
                   {"system", json::array({{{"type", "text"}, {"text", std::string("owner ") + kEmail}}})},
                   {"tools", json::array({tool})},
                   {"messages", turns}});
    ASSERT_EQ(r.status, 200) << model << " " << r.body;
    const json sent = stack_->fake->find_request(marker);
    ASSERT_TRUE(sent.is_object()) << model;
    EXPECT_EQ(sent["body"].dump().find(kEmail), std::string::npos) << sent["body"].dump();
    if (model == "claude") {
      const json& body = sent["body"];
      EXPECT_EQ(sent["path"], "/v1/messages");
      EXPECT_EQ(body["system"][0]["text"], "owner [EMAIL_1]");
      EXPECT_EQ(body["tools"][0]["description"], "mails [EMAIL_1]");
      EXPECT_EQ(body["messages"][2]["content"][0]["content"], "sent to [EMAIL_1]");
      EXPECT_EQ(body["messages"][1]["content"][0]["signature"], "sig-abc")
          << "signed reasoning passes untouched";
      EXPECT_EQ(body["messages"][1]["content"][1]["id"], "toolu_1");
    } else {
      EXPECT_EQ(sent["path"], "/v1/chat/completions");
    }
    EXPECT_EQ(record_of(r).pii_action, "masked");

    r = messages(
        "blocker",
        {{"model", model},
         {"max_tokens", 64},
         {"messages",
          json::array(
              {{{"role", "user"}, {"content", "msg-block-marker " + model}},
               {{"role", "assistant"},
                {"content",
                 json::array(
                     {{{"type", "tool_use"}, {"id", "t1"}, {"name", "pay"}, {"input", json::object()}}})}},
               {{"role", "user"},
                {"content", json::array({{{"type", "tool_result"},
                                          {"tool_use_id", "t1"},
                                          {"content", std::string("card ") + kCard}}})}}})}});
    EXPECT_EQ(r.status, 422) << r.body;
    EXPECT_EQ(r.json()["type"], "error") << "Anthropic's envelope";
    EXPECT_EQ(r.json()["error"]["code"], "pii_detected");
    EXPECT_NE(r.json()["error"]["param"].get<std::string>().find("messages"), std::string::npos) << r.body;
    EXPECT_EQ(r.body.find("4111"), std::string::npos);
    EXPECT_TRUE(stack_->fake->find_request("msg-block-marker " + model).is_null())
        << "a blocked request reached the vendor";
  }
  expect_no_value_leaked({kEmail, kCard});
}

// POST /v1/embeddings: every input is scanned; a mask replaces the value in
// the text that is embedded, a block refuses naming the input.
TEST_F(PiiTest, EmbeddingInputsAreMaskedOrBlocked) {
  auto embed = [&](const std::string& tenant, const json& input) {
    HttpRequest r;
    r.method = "POST";
    r.path = "/v1/embeddings";
    r.body = json{{"model", "emb"}, {"input", input}, {"dimensions", 4}}.dump();
    r.headers = {{"Authorization", "Bearer " + tenant_keys_.at(tenant)}};
    return http_call(stack_->port(), r);
  };
  auto r =
      embed("masker", json::array({"emb-pii-marker plain", std::string("emb-pii-marker mail ") + kEmail}));
  ASSERT_EQ(r.status, 200) << r.body;
  const json sent = stack_->fake->find_request("emb-pii-marker");
  ASSERT_TRUE(sent.is_object());
  EXPECT_EQ(sent["body"]["input"][1], "emb-pii-marker mail [EMAIL_1]");
  EXPECT_EQ(record_of(r).pii_action, "masked");
  r = embed("blocker", json::array({"emb-block-marker", std::string("card ") + kCard}));
  EXPECT_TRUE(IsApiError(r, 422, "invalid_request_error", "pii_detected", "input[1]")) << r.body;
  EXPECT_TRUE(stack_->fake->find_request("emb-block-marker").is_null());
  expect_no_value_leaked({kEmail, kCard});
}

}  // namespace
}  // namespace it
