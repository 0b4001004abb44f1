// The configuration keys of routing and upstream resilience: provider
// timeouts and limits, concrete and tier catalog entries, and retry:.
#include "app/config_loader.h"
#include "catalog/parameters.h"
#include "config_refusal.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using modelgw::config::ConfigError;
using modelgw::config::load_text;
using modelgw::config::testing::error_of;

// A provider block with `extra` keys, and a catalog whose entries are `catalog`.
std::string yaml_with(const std::string& provider_extra, const std::string& catalog,
                      const std::string& tail = "") {
  return "providers:\n  openai: { plugin: openai, base_url: \"https://api.openai.com/v1\"" +
         (provider_extra.empty() ? "" : ", " + provider_extra) + " }\ncatalog:\n" + catalog + tail;
}

const std::string kOneModel = "  m: { provider: openai, model: gpt-4o }\n";

// The refusal starts with the key path (ConfigError's contract).
void expect_refused(const std::string& yaml, const std::string& key_path) {
  const std::string error = error_of(yaml);
  EXPECT_EQ(error.rfind(key_path + ":", 0), 0u) << "error: " << error << "\nyaml:\n" << yaml;
}

// --- providers ---------------------------------------------------------------

TEST(ConfigRouting, ProviderDefaults) {
  auto c = load_text(yaml_with("", kOneModel));
  ASSERT_EQ(c.providers.size(), 1u);
  const auto& p = c.providers[0];
  EXPECT_EQ(p.connect_timeout_ms, 5000);
  EXPECT_EQ(p.timeout_ms, 600000);
  EXPECT_EQ(p.first_byte_timeout_ms, 60000);
  EXPECT_EQ(p.max_connections, c.server.max_connections);  // one upstream connection per open stream
  EXPECT_EQ(p.ca_file, "");
}

TEST(ConfigRouting, ProviderReadsTheNewKeys) {
  auto c = load_text(yaml_with(
      "connect_timeout_ms: 250, first_byte_timeout_ms: 7000, timeout_ms: 90000, max_connections: 12, "
      "ca_file: \"/etc/ssl/extra.pem\"",
      kOneModel));
  const auto& p = c.providers[0];
  EXPECT_EQ(p.connect_timeout_ms, 250);
  EXPECT_EQ(p.first_byte_timeout_ms, 7000);
  EXPECT_EQ(p.timeout_ms, 90000);
  EXPECT_EQ(p.max_connections, 12);
  EXPECT_EQ(p.ca_file, "/etc/ssl/extra.pem");
}

TEST(ConfigRouting, FirstByteTimeoutDefaultsToTheSmallerOfOneMinuteAndTheTotal) {
  EXPECT_EQ(load_text(yaml_with("timeout_ms: 20000", kOneModel)).providers[0].first_byte_timeout_ms, 20000);
  EXPECT_EQ(load_text(yaml_with("timeout_ms: 60000", kOneModel)).providers[0].first_byte_timeout_ms, 60000);
  EXPECT_EQ(load_text(yaml_with("timeout_ms: 120000", kOneModel)).providers[0].first_byte_timeout_ms, 60000);
}

TEST(ConfigRouting, FirstByteTimeoutMustNotExceedTheTotal) {
  EXPECT_EQ(load_text(yaml_with("timeout_ms: 3000, first_byte_timeout_ms: 3000", kOneModel))
                .providers[0]
                .first_byte_timeout_ms,
            3000);
  expect_refused(yaml_with("timeout_ms: 3000, first_byte_timeout_ms: 3001", kOneModel),
                 "providers.openai.first_byte_timeout_ms");
  // The default total (600000) is the bound when timeout_ms is absent.
  expect_refused(yaml_with("first_byte_timeout_ms: 600001", kOneModel),
                 "providers.openai.first_byte_timeout_ms");
}

TEST(ConfigRouting, ProviderRangesAndTypesNameTheKey) {
  for (const std::string key :
       {"connect_timeout_ms", "first_byte_timeout_ms", "timeout_ms", "max_connections"}) {
    expect_refused(yaml_with(key + ": 0", kOneModel), "providers.openai." + key);
    expect_refused(yaml_with(key + ": -5", kOneModel), "providers.openai." + key);
    expect_refused(yaml_with(key + ": soon", kOneModel), "providers.openai." + key);
    expect_refused(yaml_with(key + ": 1.5", kOneModel), "providers.openai." + key);
  }
  expect_refused(yaml_with("max_connections: 65537", kOneModel), "providers.openai.max_connections");
  expect_refused(yaml_with("timeout_ms: 86400001", kOneModel), "providers.openai.timeout_ms");
  expect_refused(yaml_with("ca_file: [a, b]", kOneModel), "providers.openai.ca_file");
}

// --- concrete catalog entries -------------------------------------------------

TEST(ConfigRouting, ConcreteEntryDefaults) {
  auto c = load_text(yaml_with("", kOneModel));
  const auto& e = c.catalog.at("m");
  EXPECT_FALSE(e.is_tier());
  EXPECT_EQ(e.alias, "m");
  EXPECT_EQ(e.provider, "openai");
  EXPECT_EQ(e.model, "gpt-4o");
  EXPECT_EQ(e.context_window, 0);
  EXPECT_EQ(e.max_output_tokens, 0);
  EXPECT_EQ(e.tokenizer, "estimate");
  EXPECT_EQ(e.supports, modelgw::catalog::default_supported_parameters());
  EXPECT_FALSE(e.drop_unsupported_params);
  EXPECT_TRUE(e.route.empty());
}

TEST(ConfigRouting, ConcreteEntryReadsEveryKey) {
  auto c = load_text(yaml_with("", R"(  m:
    provider: openai
    model: gpt-4o
    context_window: 128000
    max_output_tokens: 16384
    tokenizer: o200k_base
    supports: [temperature, tools, reasoning_effort]
    drop_unsupported_params: true
)"));
  const auto& e = c.catalog.at("m");
  EXPECT_EQ(e.context_window, 128000);
  EXPECT_EQ(e.max_output_tokens, 16384);
  EXPECT_EQ(e.tokenizer, "o200k_base");
  EXPECT_EQ(e.supports, (std::vector<std::string>{"temperature", "tools", "reasoning_effort"}));
  EXPECT_TRUE(e.drop_unsupported_params);
}

TEST(ConfigRouting, EveryTokenizerNameIsAccepted) {
  for (const std::string name : {"o200k_base", "cl100k_base", "estimate"}) {
    auto c = load_text(yaml_with("", "  m: { provider: openai, model: x, tokenizer: " + name + " }\n"));
    EXPECT_EQ(c.catalog.at("m").tokenizer, name);
  }
}

TEST(ConfigRouting, UnknownTokenizerIsRefused) {
  expect_refused(yaml_with("", "  m: { provider: openai, model: x, tokenizer: p50k_base }\n"),
                 "catalog.m.tokenizer");
  expect_refused(yaml_with("", "  m: { provider: openai, model: x, tokenizer: O200K_BASE }\n"),
                 "catalog.m.tokenizer");
  expect_refused(yaml_with("", "  m: { provider: openai, model: x, tokenizer: 7 }\n"), "catalog.m.tokenizer");
}

TEST(ConfigRouting, MaxOutputTokensMustBeBelowTheContextWindow) {
  EXPECT_EQ(load_text(yaml_with("",
                                "  m: { provider: openai, model: x, context_window: 1000, "
                                "max_output_tokens: 999 }\n"))
                .catalog.at("m")
                .max_output_tokens,
            999);
  expect_refused(
      yaml_with("", "  m: { provider: openai, model: x, context_window: 1000, max_output_tokens: 1000 }\n"),
      "catalog.m.max_output_tokens");
  expect_refused(
      yaml_with("", "  m: { provider: openai, model: x, context_window: 1000, max_output_tokens: 5000 }\n"),
      "catalog.m.max_output_tokens");
  // Without a context window there is nothing to compare with.
  EXPECT_EQ(load_text(yaml_with("", "  m: { provider: openai, model: x, max_output_tokens: 5000 }\n"))
                .catalog.at("m")
                .max_output_tokens,
            5000);
  expect_refused(yaml_with("", "  m: { provider: openai, model: x, context_window: -1 }\n"),
                 "catalog.m.context_window");
  expect_refused(yaml_with("", "  m: { provider: openai, model: x, max_output_tokens: big }\n"),
                 "catalog.m.max_output_tokens");
}

TEST(ConfigRouting, SupportsListsOnlyKnownParameters) {
  auto c = load_text(yaml_with("", "  m: { provider: openai, model: x, supports: [] }\n"));
  EXPECT_TRUE(c.catalog.at("m").supports.empty());

  const std::string error =
      error_of(yaml_with("", "  m: { provider: openai, model: x, supports: [temperature, temprature] }\n"));
  EXPECT_EQ(error.rfind("catalog.m.supports[1]:", 0), 0u) << error;
  EXPECT_NE(error.find("temprature"), std::string::npos) << error;
  // Core members are not parameters a model may or may not support.
  expect_refused(yaml_with("", "  m: { provider: openai, model: x, supports: [messages] }\n"),
                 "catalog.m.supports[0]");
  expect_refused(yaml_with("", "  m: { provider: openai, model: x, supports: temperature }\n"),
                 "catalog.m.supports");
  expect_refused(yaml_with("", "  m: { provider: openai, model: x, supports: [\"\"] }\n"),
                 "catalog.m.supports[0]");
}

TEST(ConfigRouting, EveryKnownParameterMayBeListed) {
  std::string list;
  for (auto name : modelgw::catalog::known_parameters())
    list += (list.empty() ? "" : ", ") + std::string(name);
  auto c = load_text(yaml_with("", "  m: { provider: openai, model: x, supports: [" + list + "] }\n"));
  EXPECT_EQ(c.catalog.at("m").supports.size(), modelgw::catalog::known_parameters().size());
}

TEST(ConfigRouting, DropUnsupportedParamsMustBeABoolean) {
  expect_refused(yaml_with("", "  m: { provider: openai, model: x, drop_unsupported_params: yes please }\n"),
                 "catalog.m.drop_unsupported_params");
  expect_refused(yaml_with("", "  m: { provider: openai, model: x, drop_unsupported_params: 1 }\n"),
                 "catalog.m.drop_unsupported_params");
}

TEST(ConfigRouting, ConcreteEntryRefusals) {
  expect_refused(yaml_with("", "  m: { model: x }\n"), "catalog.m.provider");
  expect_refused(yaml_with("", "  m: { provider: openai }\n"), "catalog.m.model");
  expect_refused(yaml_with("", "  m: { provider: anthropic, model: x }\n"), "catalog.m.provider");
  expect_refused(yaml_with("", "  m: { provider: openai, model: x, contex_window: 5 }\n"),
                 "catalog.m.contex_window");
  expect_refused(yaml_with("", "  m: [openai, x]\n"), "catalog.m");
  expect_refused(yaml_with("", "  auto: { provider: openai, model: x }\n"), "catalog.auto");
}

// --- tier entries -------------------------------------------------------------

const std::string kTwoModels =
    "  fast: { provider: openai, model: gpt-4o-mini }\n"
    "  smart: { provider: openai, model: gpt-4o }\n";

TEST(ConfigRouting, TierReadsItsRouteInOrder) {
  auto c = load_text(yaml_with("", kTwoModels + "  best: { route: [smart, fast] }\n"));
  const auto& tier = c.catalog.at("best");
  EXPECT_TRUE(tier.is_tier());
  EXPECT_EQ(tier.alias, "best");
  EXPECT_EQ(tier.route, (std::vector<std::string>{"smart", "fast"}));
  EXPECT_TRUE(tier.provider.empty());
  EXPECT_FALSE(c.catalog.at("fast").is_tier());
}

TEST(ConfigRouting, TierMayBeDeclaredBeforeItsModels) {
  auto c = load_text(yaml_with("", "  aaa: { route: [smart] }\n" + kTwoModels));
  EXPECT_EQ(c.catalog.at("aaa").route, (std::vector<std::string>{"smart"}));
}

TEST(ConfigRouting, TierTakesNothingButRoute) {
  for (const std::string key : {"provider: openai", "model: x", "context_window: 10", "tokenizer: estimate",
                                "supports: [temperature]", "drop_unsupported_params: true"}) {
    const std::string yaml = yaml_with("", kTwoModels + "  best: { route: [fast], " + key + " }\n");
    const std::string name = key.substr(0, key.find(':'));
    expect_refused(yaml, "catalog.best." + name);
  }
}

TEST(ConfigRouting, TierRouteRefusals) {
  expect_refused(yaml_with("", kTwoModels + "  best: { route: [] }\n"), "catalog.best.route");
  expect_refused(yaml_with("", kTwoModels + "  best: { route: fast }\n"), "catalog.best.route");
  expect_refused(yaml_with("", kTwoModels + "  best: { route: [fast, 3] }\n"), "catalog.best.route[1]");

  std::string unknown = error_of(yaml_with("", kTwoModels + "  best: { route: [fast, genius] }\n"));
  EXPECT_EQ(unknown.rfind("catalog.best.route[1]:", 0), 0u) << unknown;
  EXPECT_NE(unknown.find("genius"), std::string::npos) << unknown;

  std::string nested =
      error_of(yaml_with("", kTwoModels + "  best: { route: [smart] }\n  better: { route: [fast, best] }\n"));
  EXPECT_EQ(nested.rfind("catalog.better.route[1]:", 0), 0u) << nested;
  EXPECT_NE(nested.find("tier"), std::string::npos) << nested;

  expect_refused(yaml_with("", kTwoModels + "  loop: { route: [loop] }\n"), "catalog.loop.route[0]");
}

// --- retry --------------------------------------------------------------------

TEST(ConfigRouting, RetryDefaults) {
  auto c = load_text(yaml_with("", kOneModel));
  EXPECT_EQ(c.retry.max_attempts, 5);
  EXPECT_EQ(c.retry.base_ms, 1000);
  EXPECT_EQ(c.retry.max_wait_ms, 60000);
  EXPECT_EQ(c.retry.budget_ms, 30000);
}

TEST(ConfigRouting, RetryReadsItsKeys) {
  auto c = load_text(
      yaml_with("", kOneModel, "retry: { max_attempts: 2, base_ms: 50, max_wait_ms: 400, budget_ms: 0 }\n"));
  EXPECT_EQ(c.retry.max_attempts, 2);
  EXPECT_EQ(c.retry.base_ms, 50);
  EXPECT_EQ(c.retry.max_wait_ms, 400);
  EXPECT_EQ(c.retry.budget_ms, 0);
}

TEST(ConfigRouting, RetryRefusals) {
  EXPECT_EQ(load_text(yaml_with("", kOneModel, "retry: { max_attempts: 1 }\n")).retry.max_attempts, 1);
  expect_refused(yaml_with("", kOneModel, "retry: { max_attempts: 0 }\n"), "retry.max_attempts");
  expect_refused(yaml_with("", kOneModel, "retry: { max_attempts: 6 }\n"), "retry.max_attempts");
  expect_refused(yaml_with("", kOneModel, "retry: { base_ms: 0 }\n"), "retry.base_ms");
  expect_refused(yaml_with("", kOneModel, "retry: { max_wait_ms: 0 }\n"), "retry.max_wait_ms");
  expect_refused(yaml_with("", kOneModel, "retry: { budget_ms: -1 }\n"), "retry.budget_ms");
  expect_refused(yaml_with("", kOneModel, "retry: { budget_ms: soon }\n"), "retry.budget_ms");
  expect_refused(yaml_with("", kOneModel, "retry: { max_attemps: 2 }\n"), "retry.max_attemps");
  expect_refused(yaml_with("", kOneModel, "retry: 3\n"), "retry");
}

}  // namespace
