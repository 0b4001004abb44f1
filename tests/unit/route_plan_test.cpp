// plan_routes: parameter support, dropping, the context-window check and how a
// tier skips the models that cannot take a request. Also the max_tokens /
// max_completion_tokens validation of parse_chat_request it relies on.
#include "chat/route_plan.h"
#include "chat/chat_request.h"

#include <modelgw/tokenizer.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace {

using modelgw::catalog::ModelRoute;
using modelgw::chat::ChatRequest;
using modelgw::chat::parse_chat_request;
using modelgw::chat::plan_routes;
using modelgw::chat::Routing;
using modelgw::errors::ApiError;

struct RouteSpec {
  std::string alias = "m";
  std::vector<std::string> supports = {"temperature", "top_p", "max_tokens", "max_completion_tokens"};
  bool drop = false;
  std::int64_t context_window = 0;
  std::int64_t max_output_tokens = 0;
};

ModelRoute make_route(const RouteSpec& spec) {
  ModelRoute r;
  r.entry.alias = spec.alias;
  r.entry.provider = "openai";
  r.entry.model = spec.alias + "-upstream";
  r.entry.context_window = spec.context_window;
  r.entry.max_output_tokens = spec.max_output_tokens;
  r.entry.supports = spec.supports;
  r.entry.drop_unsupported_params = spec.drop;
  r.supports.insert(spec.supports.begin(), spec.supports.end());
  return r;  // provider, pool and encoding stay null: the estimate counts
}

ChatRequest request(const std::string& body) {
  auto parsed = parse_chat_request(body);
  if (auto* e = std::get_if<ApiError>(&parsed)) {
    ADD_FAILURE() << "not a valid request: " << e->message << "\n" << body;
    return {};
  }
  return std::get<ChatRequest>(std::move(parsed));
}

// A body with the usual core members plus `extra` (",\"temperature\":1").
std::string body_with(const std::string& extra) {
  return R"({"model":"m","messages":[{"role":"system","content":"Be brief."},)"
         R"({"role":"user","content":"What is the capital of France? Answer in one word."}])" +
         extra + "}";
}

std::int64_t estimated_prompt(const ChatRequest& req) {
  return static_cast<std::int64_t>(modelgw::tokenizer::count_chat_prompt(nullptr, req.doc));
}

std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

Routing plan(std::initializer_list<const ModelRoute*> candidates, const ChatRequest& req) {
  return plan_routes(std::vector<const ModelRoute*>(candidates), req);
}

void expect_unsupported(const Routing& r, const std::string& param) {
  EXPECT_TRUE(r.plans.empty());
  ASSERT_TRUE(r.refusal.has_value());
  EXPECT_EQ(r.refusal->status, 422);
  EXPECT_EQ(r.refusal->code, "unsupported_parameter");
  EXPECT_EQ(r.refusal->param, param);
  EXPECT_NE(r.refusal->message.find(param), std::string::npos) << r.refusal->message;
}

void expect_context_exceeded(const Routing& r) {
  EXPECT_TRUE(r.plans.empty());
  ASSERT_TRUE(r.refusal.has_value());
  EXPECT_EQ(r.refusal->status, 422);
  EXPECT_EQ(r.refusal->code, "context_length_exceeded");
  EXPECT_EQ(r.refusal->param, "messages");
}

// --- parameter support --------------------------------------------------------

TEST(RoutePlan, SupportedParametersPassUnchanged) {
  const ModelRoute m = make_route({});
  const auto req = request(body_with(R"(,"temperature":0.2,"top_p":0.9,"max_tokens":50)"));
  const Routing r = plan({&m}, req);
  ASSERT_EQ(r.plans.size(), 1u);
  EXPECT_FALSE(r.refusal.has_value());
  EXPECT_EQ(r.plans[0].route, &m);
  EXPECT_TRUE(r.plans[0].dropped.empty());
  EXPECT_TRUE(r.plans[0].body.empty());
}

TEST(RoutePlan, CoreMembersAlwaysPass) {
  const ModelRoute m = make_route({.supports = {}});
  const auto req = request(body_with(R"(,"stream":true,"stream_options":{"include_usage":true})"));
  const Routing r = plan({&m}, req);
  ASSERT_EQ(r.plans.size(), 1u);
  EXPECT_FALSE(r.refusal.has_value());
  EXPECT_TRUE(r.plans[0].dropped.empty());
}

TEST(RoutePlan, UnsupportedParameterIsRefusedByName) {
  const ModelRoute m = make_route({.alias = "strict", .supports = {"temperature"}});
  const Routing r = plan({&m}, request(body_with(R"(,"temperature":1,"top_p":0.5)")));
  expect_unsupported(r, "top_p");
  EXPECT_NE(r.refusal->message.find("strict"), std::string::npos) << r.refusal->message;
}

// ABI 1.4: a parameter the provider's plugin drops is removed and named,
// whatever drop_unsupported_params says; one it refuses is refused.
TEST(RoutePlan, WhatThePluginDropsIsDroppedAndNamed) {
  ModelRoute m = make_route({.supports = {"temperature"}});
  m.plugin_drops = {"seed"};
  const Routing r = plan({&m}, request(body_with(R"(,"temperature":1,"seed":7)")));
  ASSERT_EQ(r.plans.size(), 1u) << (r.refusal ? r.refusal->message : "");
  EXPECT_EQ(r.plans[0].dropped, std::vector<std::string>{"seed"});
  EXPECT_EQ(r.plans[0].body.find("seed"), std::string::npos) << r.plans[0].body;
  EXPECT_NE(r.plans[0].body.find("temperature"), std::string::npos);
  expect_unsupported(plan({&m}, request(body_with(R"(,"response_format":{"type":"json_object"})"))),
                     "response_format");
}

TEST(RoutePlan, ANumberOutsideThePluginsRangeIsRefusedAndATierMovesOn) {
  ModelRoute narrow = make_route({.alias = "narrow", .supports = {"temperature"}});
  narrow.ranges["temperature"] = {0, 1};
  const ModelRoute wide = make_route({.alias = "wide", .supports = {"temperature"}});
  Routing r = plan({&narrow}, request(body_with(R"(,"temperature":1.5)")));
  EXPECT_TRUE(r.plans.empty());
  ASSERT_TRUE(r.refusal);
  EXPECT_EQ(r.refusal->status, 400);
  EXPECT_EQ(r.refusal->code, "invalid_parameter");
  EXPECT_EQ(r.refusal->param, "temperature");
  EXPECT_NE(r.refusal->message.find("from 0 to 1"), std::string::npos) << r.refusal->message;
  r = plan({&narrow, &wide}, request(body_with(R"(,"temperature":1.5)")));
  ASSERT_EQ(r.plans.size(), 1u);
  EXPECT_EQ(r.plans[0].route, &wide);
  r = plan({&narrow}, request(body_with(R"(,"temperature":0.5)")));
  EXPECT_EQ(r.plans.size(), 1u) << "inside the range passes";
}

TEST(RoutePlan, UnknownMemberIsRefusedByName) {
  const ModelRoute m = make_route({});
  expect_unsupported(plan({&m}, request(body_with(R"(,"temprature":1)"))), "temprature");
  expect_unsupported(plan({&m}, request(body_with(R"(,"x_vendor":{"a":1})"))), "x_vendor");
}

TEST(RoutePlan, AHugeUnknownMemberNameIsQuotedBounded) {
  const ModelRoute m = make_route({});
  const std::string name(4 << 20, 'p');
  const Routing r = plan({&m}, request(body_with(",\"" + name + "\":1")));
  ASSERT_TRUE(r.refusal.has_value());
  EXPECT_EQ(r.refusal->status, 422);
  EXPECT_EQ(r.refusal->code, "unsupported_parameter");
  EXPECT_LT(r.refusal->message.size(), 1024u);
  EXPECT_LT(r.refusal->param.size(), 1024u);
  EXPECT_NE(r.refusal->message.find("(4194304 bytes)"), std::string::npos) << r.refusal->message;
  // A name that is not printable ASCII is escaped, in the message and the param.
  const Routing odd = plan({&m}, request(body_with(R"(,"a\"b\u00e9":1)")));
  ASSERT_TRUE(odd.refusal.has_value());
  EXPECT_EQ(odd.refusal->param, "a\\x22b\\xc3\\xa9");
}

TEST(RoutePlan, NullMembersAreIgnored) {
  const ModelRoute m = make_route({.supports = {}});
  const auto req = request(body_with(R"(,"temperature":null,"whatever":null,"tools":null)"));
  const Routing r = plan({&m}, req);
  ASSERT_EQ(r.plans.size(), 1u);
  EXPECT_FALSE(r.refusal.has_value());
  EXPECT_TRUE(r.plans[0].dropped.empty());
  EXPECT_TRUE(r.plans[0].body.empty());
}

TEST(RoutePlan, DropsUnsupportedParametersWhenConfigured) {
  const ModelRoute m = make_route({.supports = {"temperature"}, .drop = true});
  const auto req =
      request(body_with(R"(,"temperature":0.3,"top_p":0.5,"logit_bias":{"1":2},"x_extra":true,"seed":null)"));
  const Routing r = plan({&m}, req);
  ASSERT_EQ(r.plans.size(), 1u);
  EXPECT_FALSE(r.refusal.has_value());
  auto dropped = r.plans[0].dropped;
  std::sort(dropped.begin(), dropped.end());
  EXPECT_EQ(dropped, (std::vector<std::string>{"logit_bias", "top_p", "x_extra"}));

  ASSERT_FALSE(r.plans[0].body.empty());
  const auto sent = nlohmann::json::parse(r.plans[0].body);
  for (const char* gone : {"top_p", "logit_bias", "x_extra"}) EXPECT_FALSE(sent.contains(gone)) << gone;
  EXPECT_EQ(sent.at("temperature"), 0.3);
  EXPECT_EQ(sent.at("model"), "m");
  EXPECT_EQ(sent.at("messages"), req.doc.at("messages"));
  // Everything but the dropped members is kept as it was.
  nlohmann::json expected = req.doc;
  for (const char* gone : {"top_p", "logit_bias", "x_extra"}) expected.erase(gone);
  EXPECT_EQ(sent, expected);
}

TEST(RoutePlan, DropModeWithNothingToDropKeepsTheBody) {
  const ModelRoute m = make_route({.supports = {"temperature"}, .drop = true});
  const Routing r = plan({&m}, request(body_with(R"(,"temperature":0.3,"stream":false)")));
  ASSERT_EQ(r.plans.size(), 1u);
  EXPECT_TRUE(r.plans[0].dropped.empty());
  EXPECT_TRUE(r.plans[0].body.empty());
}

TEST(RoutePlan, JoinNames) {
  EXPECT_EQ(modelgw::chat::join_names({}), "");
  EXPECT_EQ(modelgw::chat::join_names({"top_p"}), "top_p");
  EXPECT_EQ(modelgw::chat::join_names({"temperature", "top_p", "seed"}), "temperature, top_p, seed");
}

// --- context window -------------------------------------------------------------

TEST(RoutePlan, NoContextWindowMeansNoCheck) {
  const ModelRoute m = make_route({.context_window = 0, .max_output_tokens = 0});
  const Routing r = plan({&m}, request(body_with(R"(,"max_tokens":100000000)")));
  ASSERT_EQ(r.plans.size(), 1u);
  EXPECT_EQ(r.plans[0].prompt_tokens, 0);
}

TEST(RoutePlan, ClientMaxTokensCountsAgainstTheWindow) {
  const auto probe = request(body_with(""));
  const std::int64_t prompt = estimated_prompt(probe);
  ASSERT_GT(prompt, 0);
  const ModelRoute m = make_route({.context_window = prompt + 100, .max_output_tokens = 10});

  const Routing fits = plan({&m}, request(body_with(R"(,"max_tokens":100)")));
  ASSERT_EQ(fits.plans.size(), 1u);
  EXPECT_EQ(fits.plans[0].prompt_tokens, prompt);
  EXPECT_EQ(fits.plans[0].default_max_tokens, 10);

  const Routing over = plan({&m}, request(body_with(R"(,"max_tokens":101)")));
  expect_context_exceeded(over);
  const std::string& msg = over.refusal->message;
  EXPECT_NE(msg.find(std::to_string(prompt + 101)), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(prompt) + " prompt tokens"), std::string::npos) << msg;
  EXPECT_NE(msg.find("101"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(prompt + 100)), std::string::npos) << msg;
  EXPECT_NE(msg.find("'m'"), std::string::npos) << msg;
}

TEST(RoutePlan, MaxCompletionTokensCountsAndWinsOverMaxTokens) {
  const std::int64_t prompt = estimated_prompt(request(body_with("")));
  const ModelRoute m = make_route({.context_window = prompt + 100});
  expect_context_exceeded(plan({&m}, request(body_with(R"(,"max_completion_tokens":101)"))));
  EXPECT_EQ(plan({&m}, request(body_with(R"(,"max_completion_tokens":100)"))).plans.size(), 1u);
  // Both sent: max_completion_tokens is the one that counts.
  EXPECT_EQ(plan({&m}, request(body_with(R"(,"max_tokens":5000,"max_completion_tokens":100)"))).plans.size(),
            1u);
  expect_context_exceeded(plan({&m}, request(body_with(R"(,"max_tokens":1,"max_completion_tokens":101)"))));
}

TEST(RoutePlan, CatalogOutputSizeCountsWhenTheClientSetsNone) {
  const std::int64_t prompt = estimated_prompt(request(body_with("")));
  const ModelRoute fits = make_route({.context_window = prompt + 50, .max_output_tokens = 50});
  const Routing ok = plan({&fits}, request(body_with("")));
  ASSERT_EQ(ok.plans.size(), 1u);
  EXPECT_EQ(ok.plans[0].default_max_tokens, 50);
  EXPECT_EQ(ok.plans[0].prompt_tokens, prompt);

  const ModelRoute over = make_route({.context_window = prompt + 50, .max_output_tokens = 51});
  const Routing refused = plan({&over}, request(body_with("")));
  expect_context_exceeded(refused);
  EXPECT_NE(refused.refusal->message.find(std::to_string(prompt + 51)), std::string::npos)
      << refused.refusal->message;
  // A null max_tokens is "not set": the default still counts.
  expect_context_exceeded(plan({&over}, request(body_with(R"(,"max_tokens":null)"))));
  // The client's own smaller limit replaces the default.
  EXPECT_EQ(plan({&over}, request(body_with(R"(,"max_tokens":50)"))).plans.size(), 1u);
}

TEST(RoutePlan, PromptAloneOverTheWindowIsRefused) {
  const std::int64_t prompt = estimated_prompt(request(body_with("")));
  const ModelRoute m = make_route({.context_window = prompt - 1});
  const Routing r = plan({&m}, request(body_with("")));
  expect_context_exceeded(r);
  EXPECT_NE(r.refusal->message.find(std::to_string(prompt) + " prompt tokens"), std::string::npos)
      << r.refusal->message;
  // At exactly the window it fits.
  const ModelRoute exact = make_route({.context_window = prompt});
  EXPECT_EQ(plan({&exact}, request(body_with(""))).plans.size(), 1u);
}

TEST(RoutePlan, LargeNumbersAreGroupedInTheMessage) {
  const std::int64_t prompt = estimated_prompt(request(body_with("")));
  const ModelRoute m = make_route({.context_window = 128000});
  const Routing r = plan({&m}, request(body_with(R"(,"max_tokens":1234567)")));
  expect_context_exceeded(r);
  const std::string& msg = r.refusal->message;
  EXPECT_NE(msg.find("128,000"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1,234,567"), std::string::npos) << msg;
  EXPECT_NE(msg.find(grouped(prompt + 1234567)), std::string::npos) << msg;
}

TEST(RoutePlan, TheLargestMaxTokensIsRefusedNotWrappedAround) {
  const ModelRoute m = make_route({.context_window = 128000});
  for (const char* field : {"max_tokens", "max_completion_tokens"}) {
    const Routing r = plan({&m}, request(body_with(std::string(",\"") + field + "\":9223372036854775807")));
    expect_context_exceeded(r);
    EXPECT_NE(r.refusal->message.find("128,000"), std::string::npos) << r.refusal->message;
  }
}

TEST(RoutePlan, ADroppedMaxTokensDoesNotCount) {
  const std::int64_t prompt = estimated_prompt(request(body_with("")));
  const ModelRoute m = make_route(
      {.supports = {"temperature"}, .drop = true, .context_window = prompt + 20, .max_output_tokens = 20});
  const Routing r = plan({&m}, request(body_with(R"(,"max_tokens":1000000)")));
  ASSERT_EQ(r.plans.size(), 1u) << (r.refusal ? r.refusal->message : "");
  EXPECT_EQ(r.plans[0].dropped, (std::vector<std::string>{"max_tokens"}));
  EXPECT_FALSE(nlohmann::json::parse(r.plans[0].body).contains("max_tokens"));
}

TEST(RoutePlan, TheLimitThatIsKeptCountsWhenTheOtherIsDropped) {
  const std::int64_t prompt = estimated_prompt(request(body_with("")));
  // max_completion_tokens is dropped; the upstream gets max_tokens 10, which fits.
  const ModelRoute keeps_max_tokens = make_route(
      {.supports = {"max_tokens"}, .drop = true, .context_window = prompt + 20, .max_output_tokens = 5});
  const Routing a =
      plan({&keeps_max_tokens}, request(body_with(R"(,"max_tokens":10,"max_completion_tokens":100000)")));
  ASSERT_EQ(a.plans.size(), 1u) << (a.refusal ? a.refusal->message : "");
  EXPECT_EQ(a.plans[0].dropped, (std::vector<std::string>{"max_completion_tokens"}));
  // ...and a kept max_tokens that does not fit is refused.
  const Routing b =
      plan({&keeps_max_tokens}, request(body_with(R"(,"max_tokens":21,"max_completion_tokens":1)")));
  expect_context_exceeded(b);

  // max_tokens is dropped; max_completion_tokens is kept and counts.
  const ModelRoute keeps_completion = make_route({.supports = {"max_completion_tokens"},
                                                  .drop = true,
                                                  .context_window = prompt + 20,
                                                  .max_output_tokens = 5});
  expect_context_exceeded(
      plan({&keeps_completion}, request(body_with(R"(,"max_tokens":10,"max_completion_tokens":21)"))));
  EXPECT_EQ(
      plan({&keeps_completion}, request(body_with(R"(,"max_tokens":100000,"max_completion_tokens":20)")))
          .plans.size(),
      1u);
}

TEST(RoutePlan, ARealEncodingCountsTheWayTheTokenizerDoes) {
  const auto* enc = modelgw::tokenizer::find_encoding("o200k_base");
  ASSERT_NE(enc, nullptr);
  ModelRoute m = make_route({.context_window = 100000});
  m.encoding = enc;
  const auto req = request(body_with(""));
  const Routing r = plan({&m}, req);
  ASSERT_EQ(r.plans.size(), 1u);
  EXPECT_EQ(r.plans[0].prompt_tokens,
            static_cast<std::int64_t>(modelgw::tokenizer::count_chat_prompt(enc, req.doc)));
}

// --- tiers ----------------------------------------------------------------------

TEST(RoutePlan, TierKeepsEveryModelThatCanInOrder) {
  const ModelRoute a = make_route({.alias = "a"});
  const ModelRoute b = make_route({.alias = "b"});
  const ModelRoute c = make_route({.alias = "c"});
  const Routing r = plan({&c, &a, &b}, request(body_with(R"(,"temperature":1)")));
  ASSERT_EQ(r.plans.size(), 3u);
  EXPECT_FALSE(r.refusal.has_value());
  EXPECT_EQ(r.plans[0].route, &c);
  EXPECT_EQ(r.plans[1].route, &a);
  EXPECT_EQ(r.plans[2].route, &b);
}

TEST(RoutePlan, TierSkipsAModelWithoutTheParameter) {
  const ModelRoute plain = make_route({.alias = "plain", .supports = {}});
  const ModelRoute full = make_route({.alias = "full", .supports = {"temperature"}});
  const Routing r = plan({&plain, &full}, request(body_with(R"(,"temperature":1)")));
  ASSERT_EQ(r.plans.size(), 1u);
  EXPECT_EQ(r.plans[0].route, &full);
  EXPECT_FALSE(r.refusal.has_value());
}

TEST(RoutePlan, TierSkipsAModelWithTooSmallAWindow) {
  const std::int64_t prompt = estimated_prompt(request(body_with("")));
  const ModelRoute small = make_route({.alias = "small", .context_window = prompt + 10});
  const ModelRoute big = make_route({.alias = "big", .context_window = prompt + 1000});
  const Routing r = plan({&small, &big, &small}, request(body_with(R"(,"max_tokens":500)")));
  ASSERT_EQ(r.plans.size(), 1u);
  EXPECT_EQ(r.plans[0].route, &big);
  EXPECT_EQ(r.plans[0].prompt_tokens, prompt);
  EXPECT_FALSE(r.refusal.has_value());
}

TEST(RoutePlan, TierMixesDroppingAndPassing) {
  const ModelRoute dropper = make_route({.alias = "dropper", .supports = {}, .drop = true});
  const ModelRoute full = make_route({.alias = "full", .supports = {"temperature"}});
  const Routing r = plan({&dropper, &full}, request(body_with(R"(,"temperature":1)")));
  ASSERT_EQ(r.plans.size(), 2u);
  EXPECT_EQ(r.plans[0].dropped, (std::vector<std::string>{"temperature"}));
  EXPECT_FALSE(r.plans[0].body.empty());
  EXPECT_TRUE(r.plans[1].dropped.empty());
  EXPECT_TRUE(r.plans[1].body.empty());
}

TEST(RoutePlan, TierRefusesWithTheFirstModelsReasonWhenNoneCan) {
  const std::int64_t prompt = estimated_prompt(request(body_with("")));
  const ModelRoute no_temp =
      make_route({.alias = "no_temp", .supports = {"max_tokens"}, .context_window = 0});
  const ModelRoute small = make_route({.alias = "small", .context_window = prompt + 1});
  const auto req = request(body_with(R"(,"temperature":1,"max_tokens":100)"));

  const Routing first_unsupported = plan({&no_temp, &small}, req);
  expect_unsupported(first_unsupported, "temperature");
  EXPECT_NE(first_unsupported.refusal->message.find("no_temp"), std::string::npos);

  const Routing first_too_small = plan({&small, &no_temp}, req);
  expect_context_exceeded(first_too_small);
  EXPECT_NE(first_too_small.refusal->message.find("small"), std::string::npos);
}

TEST(RoutePlan, NoCandidatesGiveNoPlan) {
  const Routing r = plan_routes({}, request(body_with("")));
  EXPECT_TRUE(r.plans.empty());
}

// --- parse_chat_request: max_tokens / max_completion_tokens ----------------------

ApiError parse_error(const std::string& body) {
  auto r = parse_chat_request(body);
  if (auto* e = std::get_if<ApiError>(&r)) return *e;
  return ApiError{200, "none", "", ""};
}

TEST(ChatRequestMaxTokens, PositiveIntegersAreAccepted) {
  EXPECT_FALSE(request(body_with("")).max_tokens.has_value());
  EXPECT_EQ(request(body_with(R"(,"max_tokens":1)")).max_tokens, 1);
  EXPECT_EQ(request(body_with(R"(,"max_tokens":4096)")).max_tokens, 4096);
  EXPECT_EQ(request(body_with(R"(,"max_completion_tokens":77)")).max_tokens, 77);
  EXPECT_FALSE(request(body_with(R"(,"max_tokens":null)")).max_tokens.has_value());
  EXPECT_EQ(request(body_with(R"(,"max_tokens":null,"max_completion_tokens":9)")).max_tokens, 9);
  EXPECT_EQ(request(body_with(R"(,"max_tokens":9,"max_completion_tokens":null)")).max_tokens, 9);
}

TEST(ChatRequestMaxTokens, MaxCompletionTokensWinsWhenBothAreSent) {
  EXPECT_EQ(request(body_with(R"(,"max_tokens":10,"max_completion_tokens":20)")).max_tokens, 20);
  EXPECT_EQ(request(body_with(R"(,"max_completion_tokens":20,"max_tokens":10)")).max_tokens, 20);
  EXPECT_EQ(request(body_with(R"(,"max_completion_tokens":5,"max_tokens":10)")).max_tokens, 5);
}

TEST(ChatRequestMaxTokens, AnythingButAPositiveIntegerIsRefused) {
  for (const std::string field : {"max_tokens", "max_completion_tokens"}) {
    for (const std::string value : {"0", "-1", "1.5", "100.0", "\"100\"", "true", "[1]", "{}",
                                    "18446744073709551615", "-9223372036854775808"}) {
      const ApiError e = parse_error(body_with(",\"" + field + "\":" + value));
      EXPECT_EQ(e.status, 400) << field << "=" << value;
      EXPECT_EQ(e.code, "invalid_parameter") << field << "=" << value;
      EXPECT_EQ(e.param, field) << field << "=" << value;
      EXPECT_NE(e.message.find(field), std::string::npos) << e.message;
    }
  }
  // One bad field is enough, whichever it is.
  EXPECT_EQ(parse_error(body_with(R"(,"max_tokens":10,"max_completion_tokens":0)")).param,
            "max_completion_tokens");
  EXPECT_EQ(parse_error(body_with(R"(,"max_tokens":0,"max_completion_tokens":10)")).param, "max_tokens");
}

TEST(ChatRequestMaxTokens, TheLargestValuesAreNamedInTheMessage) {
  EXPECT_EQ(request(body_with(R"(,"max_tokens":9223372036854775807)")).max_tokens, INT64_MAX);
  const ApiError e = parse_error(body_with(R"(,"max_tokens":9223372036854775808)"));
  EXPECT_EQ(e.code, "invalid_parameter");
  // The value as sent, not wrapped around to a negative.
  EXPECT_NE(e.message.find("9223372036854775808"), std::string::npos) << e.message;
  EXPECT_EQ(parse_error(body_with(R"(,"max_tokens":1e999)")).param, "max_tokens");
}

}  // namespace

namespace {

// With the request text given (as the chat endpoint does), dropped members
// are cut out of the text as written, not re-serialised.
TEST(RoutePlan, WithTheBodyTextDroppedMembersAreSplicedOut) {
  const ModelRoute m = make_route({.supports = {"temperature"}, .drop = true});
  const std::string text = R"({"model":"m", "top_p" : 0.50,"messages":[{"role":"user","content":"x"}],)"
                           R"("temperature":0.30})";
  const Routing r = plan_routes({&m}, request(text), text);
  ASSERT_EQ(r.plans.size(), 1u);
  EXPECT_EQ(r.plans[0].dropped, (std::vector<std::string>{"top_p"}));
  // 0.30 stays as written: the value's text was copied, not re-printed.
  EXPECT_EQ(r.plans[0].body,
            R"({"model":"m","messages":[{"role":"user","content":"x"}],"temperature":0.30})");
}

// Far from the window the cheap bound settles the check and no exact count is
// made; near it the exact count decides, and its refusal names the numbers.
TEST(RoutePlan, TheExactCountRunsOnlyNearTheContextWindow) {
  const std::string text = body_with("");
  const ChatRequest req = request(text);
  const ModelRoute roomy = make_route({.context_window = 100000, .max_output_tokens = 1000});
  const Routing far = plan_routes({&roomy}, req, text);
  ASSERT_EQ(far.plans.size(), 1u);
  EXPECT_EQ(far.plans[0].prompt_tokens, 0) << "counted though the bound was far from the window";

  // A window the text's bytes do not fit in, though its tokens do: counted.
  const auto exact = static_cast<std::int64_t>(modelgw::tokenizer::count_chat_prompt(nullptr, req.doc));
  const ModelRoute tight =
      make_route({.context_window = static_cast<std::int64_t>(text.size()), .max_output_tokens = 10});
  const Routing near = plan_routes({&tight}, req, text);
  ASSERT_EQ(near.plans.size(), 1u);
  EXPECT_EQ(near.plans[0].prompt_tokens, exact);
  EXPECT_EQ(modelgw::chat::count_prompt_tokens(tight, text), exact);

  const ModelRoute too_small = make_route({.context_window = exact + 5, .max_output_tokens = 10});
  const Routing refused = plan_routes({&too_small}, req, text);
  EXPECT_TRUE(refused.plans.empty());
  ASSERT_TRUE(refused.refusal.has_value());
  EXPECT_EQ(refused.refusal->code, "context_length_exceeded");
}

}  // namespace
