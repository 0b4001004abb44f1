// Routing: tier aliases and their fallbacks, parameter support per model (422
// or dropped with a header), and the context-window check, all before or
// around the upstream call.
#include "harness/checks.h"
#include "harness/http_client.h"
#include "harness/stack.h"

#include <string>

namespace it {
namespace {

using namespace std::chrono_literals;

GatewayOptions routing_options() {
  GatewayOptions o;
  o.retry_max_attempts = 2;
  o.tiers = {{"svc-flash", {"err-503", "gpt-4o-mini"}},
             {"svc-standard", {"gpt-4o-mini", "err-503"}},
             {"svc-broken", {"err-503", "err-500"}},
             {"svc-auth", {"err-401", "gpt-4o-mini"}},
             {"svc-pro", {"tiny", "reasoner", "gpt-4o-mini"}}};
  o.extra_catalog_yaml =
      "  reasoner: { provider: openai, model: \"gpt-4o-mini\", context_window: 200000, tokenizer: "
      "o200k_base,\n"
      "              supports: [max_completion_tokens, tools, tool_choice] }\n"
      "  dropper: { provider: openai, model: \"gpt-4o-mini\", supports: [max_tokens],\n"
      "             drop_unsupported_params: true }\n"
      "  tiny: { provider: openai, model: \"gpt-4o-mini\", context_window: 60, max_output_tokens: 20,\n"
      "          tokenizer: o200k_base }\n"
      "  tiny-estimate: { provider: openai, model: \"gpt-4o-mini\", context_window: 60 }\n";
  return o;
}

class RoutingTest : public SharedStackTest<RoutingTest> {
 public:
  static void SetUpTestSuite() {
    try {
      stack_ = start_stack(routing_options());
    } catch (const std::exception& e) {
      setup_error_ = e.what();
    }
  }
};

TEST_F(RoutingTest, ModelsListsTiersBesideConcreteAliases) {
  const auto r = http_get(port(), "/v1/models", key());
  ASSERT_EQ(r.status, 200);
  const auto list = r.json();  // kept: a range-for over a temporary's member would dangle
  std::map<std::string, std::string> owners;
  for (const auto& m : list["data"]) owners[m["id"].get<std::string>()] = m["owned_by"].get<std::string>();
  EXPECT_EQ(owners["svc-flash"], "modelgw");
  EXPECT_EQ(owners["reasoner"], "openai");
}

TEST_F(RoutingTest, ATierFallsBackAndTheResponseNamesTheModelThatAnswered) {
  const auto r = post_chat(port(), key(), chat_body("svc-flash", "tier-fallback"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["model"], "gpt-4o-mini") << "never the tier";
  EXPECT_EQ(upstream_calls(stack(), "tier-fallback"), 3) << "two tries of err-503, then the next entry";
  const auto rec = stack().usage().wait_for(r.header("x-request-id"));
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->alias, "gpt-4o-mini");
  EXPECT_EQ(rec->http_status, 200);
}

TEST_F(RoutingTest, AStreamedTierFallsBackBeforeItsFirstByte) {
  const auto r = stream_chat(port(), key(), chat_body("svc-flash", "tier-stream", true));
  ASSERT_EQ(r.status, 200) << r.body;
  const auto s = summarize(r.events);
  EXPECT_TRUE(s.done_last);
  ASSERT_FALSE(s.chunks.empty());
  for (const auto& c : s.chunks) EXPECT_EQ(c["model"], "gpt-4o-mini");
}

TEST_F(RoutingTest, ATierServedByItsFirstEntryNeverCallsTheNext) {
  const auto r = post_chat(port(), key(), chat_body("svc-standard", "tier-first"));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.json()["model"], "gpt-4o-mini");
  EXPECT_EQ(upstream_calls(stack(), "tier-first"), 1);
}

TEST_F(RoutingTest, ATierWhoseEntriesAllFailAnswersTheLastFailure) {
  const auto r = post_chat(port(), key(), chat_body("svc-broken", "tier-all-fail"));
  EXPECT_TRUE(IsApiError(r, 502, "api_error", "provider_failed"));
  EXPECT_EQ(upstream_calls(stack(), "tier-all-fail"), 4);
  const auto rec = stack().usage().wait_for(r.header("x-request-id"));
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->alias, "err-500");
}

TEST_F(RoutingTest, ANonRetryableFailureDoesNotFallBack) {
  const auto r = post_chat(port(), key(), chat_body("svc-auth", "tier-no-fallback"));
  EXPECT_TRUE(IsApiError(r, 502, "api_error", "provider_failed"));
  EXPECT_EQ(upstream_calls(stack(), "tier-no-fallback"), 1);
}

TEST_F(RoutingTest, AnUnsupportedParameterIs422NamingIt) {
  const auto r = post_chat(
      port(), key(),
      R"({"model":"reasoner","temperature":0.2,"messages":[{"role":"user","content":"unsupported-temp"}]})");
  EXPECT_TRUE(IsApiError(r, 422, "invalid_request_error", "unsupported_parameter", "temperature"));
  EXPECT_NE(r.json()["error"]["message"].get<std::string>().find("reasoner"), std::string::npos);
  EXPECT_EQ(upstream_calls(stack(), "unsupported-temp"), 0);
}

TEST_F(RoutingTest, AnUnknownMemberIs422Too) {
  const auto r = post_chat(
      port(), key(), R"({"model":"gpt-4o-mini","frobnicate":1,"messages":[{"role":"user","content":"x"}]})");
  EXPECT_TRUE(IsApiError(r, 422, "invalid_request_error", "unsupported_parameter", "frobnicate"));
}

TEST_F(RoutingTest, SupportedParametersAndNullsPass) {
  const auto r = post_chat(
      port(), key(),
      R"({"model":"reasoner","temperature":null,"max_completion_tokens":50,"messages":[{"role":"user","content":"ok-params"}]})");
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(RoutingTest, DroppedParametersAreRemovedAndNamedInAHeader) {
  const auto r = post_chat(
      port(), key(),
      R"({"model":"dropper","temperature":0.3,"top_p":0.9,"max_tokens":40,"messages":[{"role":"user","content":"drop-me"}]})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("x-dropped-params"), "temperature, top_p");
  const auto sent = stack().fake->find_request("drop-me");
  ASSERT_FALSE(sent.is_null());
  EXPECT_FALSE(sent["body"].contains("temperature"));
  EXPECT_FALSE(sent["body"].contains("top_p"));
  EXPECT_EQ(sent["body"]["max_tokens"], 40);
  const auto plain = post_chat(port(), key(), chat_body("dropper", "nothing-dropped"));
  EXPECT_FALSE(plain.has_header("x-dropped-params"));
}

TEST_F(RoutingTest, APromptBeyondTheContextWindowIs422WithTheNumbers) {
  const std::string long_text(400, 'a');  // far more than 60 tokens with any tokenizer
  const auto r = post_chat(port(), key(), chat_body("tiny", long_text + " ctx-long"));
  ASSERT_TRUE(IsApiError(r, 422, "invalid_request_error", "context_length_exceeded", "messages"));
  const std::string message = r.json()["error"]["message"];
  EXPECT_NE(message.find("context window of 60 tokens"), std::string::npos) << message;
  EXPECT_NE(message.find("20 output tokens"), std::string::npos) << message;
  EXPECT_EQ(upstream_calls(stack(), "ctx-long"), 0);
}

TEST_F(RoutingTest, MaxTokensCountsAgainstTheWindow) {
  const auto fits = post_chat(
      port(), key(), R"({"model":"tiny","max_tokens":10,"messages":[{"role":"user","content":"hi"}]})");
  EXPECT_EQ(fits.status, 200) << fits.body;
  const auto over = post_chat(
      port(), key(), R"({"model":"tiny","max_tokens":59,"messages":[{"role":"user","content":"hi"}]})");
  ASSERT_TRUE(IsApiError(over, 422, "invalid_request_error", "context_length_exceeded", "messages"));
  EXPECT_NE(over.json()["error"]["message"].get<std::string>().find("59 max_tokens"), std::string::npos);
}

TEST_F(RoutingTest, TheEstimateAppliesWhereNoTokenizerIsNamed) {
  const std::string long_text(400, 'a');
  const auto r = post_chat(port(), key(), chat_body("tiny-estimate", long_text));
  EXPECT_TRUE(IsApiError(r, 422, "invalid_request_error", "context_length_exceeded", "messages"));
}

TEST_F(RoutingTest, ATierSkipsModelsThatCannotTakeTheRequest) {
  // tiny: window too small; reasoner: no temperature; gpt-4o-mini takes it.
  const std::string long_text(400, 'b');
  const auto r = post_chat(port(), key(),
                           R"({"model":"svc-pro","temperature":0.5,"messages":[{"role":"user","content":")" +
                               long_text + R"( tier-skip"}]})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["model"], "gpt-4o-mini");
}

TEST_F(RoutingTest, AutoAndUnknownAliasesKeepTheirErrors) {
  EXPECT_TRUE(IsApiError(post_chat(port(), key(), chat_body("auto", "x")), 422, "invalid_request_error",
                         "model_not_available", "model"));
  EXPECT_TRUE(IsApiError(post_chat(port(), key(), chat_body("svc-nope", "x")), 404, "invalid_request_error",
                         "model_not_found", "model"));
}

TEST_F(RoutingTest, MaxTokensMustBeAPositiveInteger) {
  EXPECT_TRUE(IsApiError(
      post_chat(port(), key(),
                R"({"model":"gpt-4o-mini","max_tokens":0,"messages":[{"role":"user","content":"x"}]})"),
      400, "invalid_request_error", "invalid_parameter", "max_tokens"));
  EXPECT_TRUE(IsApiError(
      post_chat(port(), key(),
                R"({"model":"gpt-4o-mini","max_tokens":"9","messages":[{"role":"user","content":"x"}]})"),
      400, "invalid_request_error", "invalid_parameter", "max_tokens"));
}

}  // namespace
}  // namespace it
