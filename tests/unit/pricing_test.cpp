// Prices: the npm dataset as converted at build time, the catalog's override,
// the start-up refusal of a model priced by neither, and integer cost maths.
#include "app/config_loader.h"
#include "catalog/catalog_prices.h"

#include <modelgw/pricing.h>

#include <gtest/gtest.h>

#include <limits>

namespace {

using modelgw::pricing::Prices;

TEST(PriceDataset, PricesTheExampleCatalogsModels) {
  struct Row {
    const char* vendor;
    const char* model;
    Prices want;
  };
  // USD per million tokens as @pydantic/genai-prices 0.1.8 lists them (base tier).
  const Row rows[] = {
      {"openai", "gpt-4.1", {2'000'000, 8'000'000, 500'000}},
      {"openai", "gpt-4.1-mini", {400'000, 1'600'000, 100'000}},
      {"openai", "o4-mini", {1'100'000, 4'400'000, 275'000}},
      {"openai", "gpt-4o-mini", {150'000, 600'000, 75'000}},
      {"anthropic", "claude-sonnet-4-5", {3'000'000, 15'000'000, 300'000}},
      {"anthropic", "claude-haiku-4-5", {1'000'000, 5'000'000, 100'000}},
      {"google", "gemini-2.5-flash", {300'000, 2'500'000, 30'000}},
      {"google", "gemini-2.5-pro", {1'250'000, 10'000'000, 125'000}},
  };
  for (const auto& r : rows) {
    auto p = modelgw::pricing::builtin_prices(r.vendor, r.model);
    ASSERT_TRUE(p) << r.model;
    EXPECT_EQ(p->input, r.want.input) << r.model;
    EXPECT_EQ(p->output, r.want.output) << r.model;
    EXPECT_EQ(p->cached_input, r.want.cached_input) << r.model;
  }
  EXPECT_EQ(modelgw::pricing::dataset_version(), "0.1.8");
}

TEST(PriceDataset, MatchesDatedNamesAndKnowsNothingElse) {
  EXPECT_TRUE(modelgw::pricing::builtin_prices("openai", "gpt-4.1-2025-04-14"));
  EXPECT_FALSE(modelgw::pricing::builtin_prices("openai", "gpt-4o-mini+status=500"));
  EXPECT_FALSE(modelgw::pricing::builtin_prices("openai", "llama-3-local"));
  EXPECT_FALSE(modelgw::pricing::builtin_prices("nobody", "gpt-4.1"));
}

modelgw::config::Config load(const std::string& catalog) {
  return modelgw::config::load_text(
      "providers: { p: { plugin: openai, base_url: \"http://127.0.0.1:1/v1\" }, g: { plugin: gemini, "
      "base_url: "
      "\"http://127.0.0.1:1/v1beta\" } }\ncatalog:\n" +
          catalog,
      "test.yaml");
}

TEST(CatalogPrices, TheCatalogOverridesTheDatasetAndAModelPricedByNeitherStopsStartUp) {
  const auto c = load(
      "  m: { provider: p, model: gpt-4.1, prices: { input: 3.5, output: \"15.25\" } }\n"
      "  d: { provider: g, model: gemini-2.5-pro }\n"
      "  local: { provider: p, model: llama, prices: { input: 0, output: 0 } }\n"
      "  unknown: { provider: p, model: llama }\n");
  const auto& providers = c.providers;
  auto provider = [&](const std::string& name) {
    for (const auto& p : providers) {
      if (p.name == name) return p;
    }
    throw std::runtime_error("no provider " + name);
  };
  const Prices m = modelgw::catalog::prices_of(c.catalog.at("m"), provider("p"));
  EXPECT_EQ(m.input, 3'500'000);
  EXPECT_EQ(m.output, 15'250'000);
  EXPECT_EQ(m.cached_input, 3'500'000) << "cached input defaults to input";
  EXPECT_EQ(modelgw::catalog::prices_of(c.catalog.at("d"), provider("g")).output, 10'000'000);
  EXPECT_EQ(modelgw::catalog::prices_of(c.catalog.at("local"), provider("p")).input, 0);
  try {
    modelgw::catalog::prices_of(c.catalog.at("unknown"), provider("p"));
    FAIL() << "a model with no price must stop start-up";
  } catch (const modelgw::config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("catalog.unknown"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("prices:"), std::string::npos) << e.what();
  }
}

TEST(CatalogPrices, BadPricesAreConfigErrorsNamingTheKey) {
  for (const char* bad :
       {"{ input: -1, output: 1 }", "{ input: 1.0000001, output: 1 }", "{ input: abc, output: 1 }",
        "{ input: 1 }", "{ input: 1, output: 1, extra: 2 }", "{ input: 2000000, output: 1 }"}) {
    try {
      load(std::string("  m: { provider: p, model: x, prices: ") + bad + " }\n");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const modelgw::config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("catalog.m.prices"), std::string::npos) << e.what();
    }
  }
}

TEST(Cost, IsIntegerMicroUsdRoundedUp) {
  const Prices p{3'000'000, 15'000'000, 300'000};  // $3 / $15 / $0.30 per million
  EXPECT_EQ(modelgw::pricing::cost_micros(p, 1000, 0, 500), 3000 + 7500);
  EXPECT_EQ(modelgw::pricing::cost_micros(p, 1000, 400, 0), 1800 + 120);
  EXPECT_EQ(modelgw::pricing::cost_micros(p, 1, 0, 0), 3);
  EXPECT_EQ(modelgw::pricing::cost_micros(Prices{100'000, 0, 0}, 1, 0, 0), 1)
      << "a fraction of a micro rounds up";
  EXPECT_EQ(modelgw::pricing::cost_micros(p, 0, 0, 0), 0);
  EXPECT_EQ(modelgw::pricing::cost_micros(p, -5, 9, -1), 0);
  EXPECT_EQ(modelgw::pricing::cost_micros(p, 10, 50, 0), 3) << "cached is at most the prompt";
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(modelgw::pricing::cost_micros(p, kMax, 0, kMax), kMax) << "saturates";
}

TEST(Cost, AffordableOutputIsTheMostThatFits) {
  const Prices p{1'000'000, 2'000'000, 0};  // 1 and 2 micros per token
  EXPECT_EQ(modelgw::pricing::affordable_output_tokens(p, 100, 300), 100);
  EXPECT_EQ(modelgw::pricing::affordable_output_tokens(p, 100, 301), 100);
  EXPECT_EQ(modelgw::pricing::affordable_output_tokens(p, 100, 99), -1);
  EXPECT_EQ(modelgw::pricing::affordable_output_tokens(Prices{1, 0, 0}, 100, 5),
            std::numeric_limits<std::int64_t>::max());
  for (std::int64_t available : {0LL, 1LL, 7LL, 1000LL, 123456789LL}) {
    const std::int64_t n = modelgw::pricing::affordable_output_tokens(p, 10, available);
    if (n < 0) continue;
    EXPECT_LE(modelgw::pricing::cost_micros(p, 10, 0, n), available);
    EXPECT_GT(modelgw::pricing::cost_micros(p, 10, 0, n + 1), available);
  }
}

}  // namespace
