// The LiteLLM importer (core/src/importer): what each LiteLLM setting becomes,
// that the written file is one the real config loader accepts (and prices),
// and that no secret of the input reaches the output.
#include "importer/litellm_import.h"
#include "app/config_loader.h"
#include "catalog/catalog_prices.h"
#include "importer/import_report.h"
#include "importer/modelgw_yaml.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using modelgw::importer::import_litellm;
using modelgw::importer::ImportError;
using modelgw::importer::ImportResult;
using modelgw::importer::ReportRow;
using modelgw::importer::RowStatus;

// The row whose setting is `setting` (fails the test when there is none).
const ReportRow* litellm_row_of(const ImportResult& r, const std::string& setting) {
  for (const auto& row : r.rows) {
    if (row.setting == setting) return &row;
  }
  ADD_FAILURE() << "no row for " << setting << " in:\n" << modelgw::importer::format_report(r.rows);
  return nullptr;
}

std::string litellm_everything(const ImportResult& r) {
  return r.config_yaml + modelgw::importer::format_report(r.rows);
}

// Loads the written file with the gateway's own loader and prices every
// concrete model as check-config does.
modelgw::config::Config litellm_load_written(const ImportResult& r) {
  auto c = modelgw::config::load_text(r.config_yaml, "imported");
  for (const auto& [alias, entry] : c.catalog) {
    if (entry.is_tier()) continue;
    for (const auto& p : c.providers) {
      if (p.name == entry.provider) {
        EXPECT_NO_THROW((void)modelgw::catalog::prices_of(entry, p)) << alias;
      }
    }
  }
  return c;
}

TEST(LiteLLMImport, EnvironmentReferencesStayReferences) {
  const auto r = import_litellm(R"(
model_list:
  - model_name: gpt-4o
    litellm_params: { model: openai/gpt-4o, api_key: os.environ/MY_OPENAI_KEY }
  - model_name: claude
    litellm_params: { model: anthropic/claude-sonnet-4-5 }
)");
  EXPECT_NE(r.config_yaml.find("api_key: \"${MY_OPENAI_KEY}\""), std::string::npos) << r.config_yaml;
  EXPECT_NE(r.config_yaml.find("api_key: \"${ANTHROPIC_API_KEY}\""), std::string::npos) << r.config_yaml;
  const auto c = litellm_load_written(r);
  ASSERT_EQ(c.providers.size(), 2u);  // the loader lists them by name
  EXPECT_EQ(c.providers[0].name, "anthropic");
  EXPECT_EQ(c.providers[0].plugin, "anthropic");
  EXPECT_EQ(c.providers[1].name, "openai");
  EXPECT_EQ(c.providers[1].base_url, "https://api.openai.com/v1");
  EXPECT_EQ(c.catalog.at("gpt-4o").model, "gpt-4o");
  EXPECT_EQ(c.catalog.at("gpt-4o").tokenizer, "o200k_base");
  EXPECT_EQ(c.catalog.at("claude").provider, "anthropic");
  const auto* env = litellm_row_of(r, "environment");
  ASSERT_NE(env, nullptr);
  EXPECT_EQ(env->status, RowStatus::by_hand);
  EXPECT_NE(env->detail.find("MY_OPENAI_KEY"), std::string::npos);
  EXPECT_NE(env->detail.find("ANTHROPIC_API_KEY"), std::string::npos);
}

TEST(LiteLLMImport, ALiteralKeyBecomesAVariableAndIsNeverPrinted) {
  const std::string key = "sk-proj-UNITtestLiteralKey0123456789";
  const auto r = import_litellm(R"(
model_list:
  - model_name: mini
    litellm_params: { model: gpt-4o-mini, api_key: )" +
                                key + R"( }
general_settings:
  master_key: sk-UNITmasterKey42
  database_url: postgresql://u:UNITdbPassword@db/litellm
)");
  const std::string all = litellm_everything(r);
  for (const std::string& secret : {key, std::string("sk-UNITmasterKey42"), std::string("UNITdbPassword")}) {
    EXPECT_EQ(all.find(secret), std::string::npos) << secret << " leaked:\n" << all;
  }
  EXPECT_NE(r.config_yaml.find("api_key: \"${OPENAI_API_KEY}\""), std::string::npos) << r.config_yaml;
  const auto* literal = litellm_row_of(r, "model_list[0].litellm_params.api_key");
  ASSERT_NE(literal, nullptr);
  EXPECT_EQ(literal->status, RowStatus::by_hand);
  EXPECT_NE(literal->detail.find("export OPENAI_API_KEY="), std::string::npos) << literal->detail;
  const auto* master = litellm_row_of(r, "general_settings.master_key");
  ASSERT_NE(master, nullptr);
  EXPECT_EQ(master->status, RowStatus::by_hand);
  EXPECT_NE(master->detail.find("modelgw keys create --tenant operator --scopes admin"), std::string::npos);
  const auto* db = litellm_row_of(r, "general_settings.database_url");
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(db->status, RowStatus::unsupported);
  litellm_load_written(r);
}

TEST(LiteLLMImport, TwoLiteralKeysOfOneVendorGetTwoVariables) {
  const auto r = import_litellm(R"(
model_list:
  - model_name: a
    litellm_params: { model: openai/gpt-4o, api_key: sk-UNITfirstKeyAAAA }
  - model_name: b
    litellm_params: { model: openai/gpt-4o-mini, api_key: sk-UNITsecondKeyBBB }
  - model_name: c
    litellm_params: { model: openai/gpt-4.1, api_key: sk-UNITfirstKeyAAAA }
)");
  const auto c = litellm_load_written(r);
  ASSERT_EQ(c.providers.size(), 2u) << r.config_yaml;
  EXPECT_NE(r.config_yaml.find("${OPENAI_API_KEY}"), std::string::npos);
  EXPECT_NE(r.config_yaml.find("${OPENAI_API_KEY_2}"), std::string::npos);
  EXPECT_EQ(c.catalog.at("a").provider, c.catalog.at("c").provider);
}

TEST(LiteLLMImport, AModelGroupBecomesATierInLiteLLMsOrder) {
  const auto r = import_litellm(R"(
model_list:
  - model_name: gpt-4o
    litellm_params: { model: openai/gpt-4o, order: 2 }
    rpm: 900
  - model_name: gpt-4o
    litellm_params: { model: azure/gpt-4o-eu, api_base: "https://eu.openai.azure.com/", api_key: os.environ/AZ_EU,
                      api_version: "2024-10-21", order: 1 }
    model_info: { base_model: azure/gpt-4o }
)");
  const auto c = litellm_load_written(r);
  const auto& tier = c.catalog.at("gpt-4o");
  ASSERT_TRUE(tier.is_tier());
  EXPECT_EQ(tier.route, (std::vector<std::string>{"gpt-4o@azure", "gpt-4o@openai"}));
  const auto& azure = c.catalog.at("gpt-4o@azure");
  EXPECT_EQ(azure.model, "gpt-4o-eu");
  EXPECT_TRUE(azure.prices.has_value()) << "priced as its base_model";
  EXPECT_EQ(azure.tokenizer, "o200k_base");
  const auto provider =
      std::find_if(c.providers.begin(), c.providers.end(), [](const auto& p) { return p.name == "azure"; });
  ASSERT_NE(provider, c.providers.end());
  EXPECT_EQ(provider->plugin, "openai");
  EXPECT_EQ(provider->base_url, "https://eu.openai.azure.com/openai/v1");
  EXPECT_EQ(provider->plugin_config.at("api_key"), "");
  EXPECT_TRUE(provider->plugin_config.at("headers").contains("api-key"));
  const auto* row = litellm_row_of(r, "model_list[1] (gpt-4o)");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, RowStatus::approximated);
  EXPECT_NE(row->detail.find("api_version 2024-10-21 is not sent"), std::string::npos) << row->detail;
  const auto* rpm = litellm_row_of(r, "model_list[0].rpm");
  ASSERT_NE(rpm, nullptr);
  EXPECT_EQ(rpm->status, RowStatus::unsupported);
  const auto* group = litellm_row_of(r, "model_list: model_name gpt-4o");
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->status, RowStatus::approximated);
}

TEST(LiteLLMImport, AzureWithoutApiBaseReadsLiteLLMsVariable) {
  const auto r = import_litellm(R"(
model_list:
  - model_name: gpt-4o
    litellm_params: { model: azure/prod-gpt4o, api_key: os.environ/AZURE_API_KEY }
  - model_name: auto
    litellm_params: { model: openai/gpt-4o }
)");
  EXPECT_NE(r.config_yaml.find("base_url: \"${AZURE_API_BASE}/openai/v1\""), std::string::npos)
      << r.config_yaml;
  EXPECT_NE(r.config_yaml.find("\"api-key\": \"${AZURE_API_KEY}\""), std::string::npos) << r.config_yaml;
  const auto* env = litellm_row_of(r, "environment");
  ASSERT_NE(env, nullptr);
  EXPECT_NE(env->detail.find("AZURE_API_BASE"), std::string::npos) << env->detail;
  const auto* reserved = litellm_row_of(r, "model_list[1] (auto)");
  ASSERT_NE(reserved, nullptr);
  EXPECT_EQ(reserved->status, RowStatus::unsupported);
}

TEST(LiteLLMImport, FallbacksAndGroupAliasesBecomeTiers) {
  const auto r = import_litellm(R"(
model_list:
  - model_name: gpt-4o
    litellm_params: { model: openai/gpt-4o }
  - model_name: claude
    litellm_params: { model: anthropic/claude-sonnet-4-5 }
  - model_name: small
    litellm_params: { model: openai/gpt-4o-mini }
    model_info: { max_input_tokens: 128000 }
  - model_name: big
    litellm_params: { model: gemini/gemini-2.5-pro }
router_settings:
  fallbacks: [{"gpt-4o": ["claude", "nowhere"]}]
  context_window_fallbacks: [{"small": ["big"]}]
  model_group_alias: {"gpt-4": "gpt-4o"}
  num_retries: 9
)");
  const auto c = litellm_load_written(r);
  EXPECT_EQ(c.catalog.at("gpt-4o").route, (std::vector<std::string>{"gpt-4o@openai", "claude"}));
  EXPECT_EQ(c.catalog.at("small").route, (std::vector<std::string>{"small@openai", "big"}));
  EXPECT_EQ(c.catalog.at("small@openai").context_window, 128000);
  EXPECT_EQ(c.catalog.at("gpt-4").route, c.catalog.at("gpt-4o").route);
  EXPECT_EQ(c.retry.max_attempts, 5) << "9 retries clamp to modelgw's 5 tries";
  const auto* fallbacks = litellm_row_of(r, "router_settings.fallbacks[0]");
  ASSERT_NE(fallbacks, nullptr);
  EXPECT_EQ(fallbacks->status, RowStatus::approximated);
  EXPECT_NE(fallbacks->detail.find("nowhere"), std::string::npos);
  const auto* retries = litellm_row_of(r, "router_settings.num_retries");
  ASSERT_NE(retries, nullptr);
  EXPECT_EQ(retries->status, RowStatus::approximated);
  const auto* alias = litellm_row_of(r, "router_settings.model_group_alias.gpt-4");
  ASSERT_NE(alias, nullptr);
  EXPECT_EQ(alias->status, RowStatus::imported);
}

TEST(LiteLLMImport, AnEmbeddingModelBecomesAnEmbeddingEntry) {
  const auto r = import_litellm(R"(
model_list:
  - model_name: text-embedding-3-small
    litellm_params: { model: openai/text-embedding-3-small }
    model_info: { mode: embedding }
  - model_name: gemini-embedding
    litellm_params: { model: gemini/gemini-embedding-001, api_key: os.environ/GEMINI_API_KEY }
    model_info: { mode: embedding, output_vector_size: 768 }
  - model_name: custom-embed
    litellm_params: { model: openai/bge-m3, api_base: "http://embed.internal/v1" }
    model_info: { mode: embedding }
)");
  const auto c = litellm_load_written(r);
  const auto& openai = c.catalog.at("text-embedding-3-small");
  EXPECT_EQ(openai.kind, "embedding");
  EXPECT_EQ(openai.dimensions, 1536);
  const auto& gemini = c.catalog.at("gemini-embedding");
  EXPECT_EQ(gemini.kind, "embedding");
  EXPECT_EQ(gemini.dimensions, 768);
  EXPECT_EQ(gemini.max_inputs, 100);
  const auto* custom = litellm_row_of(r, "model_list[2] (custom-embed)");
  ASSERT_NE(custom, nullptr);
  EXPECT_EQ(custom->status, RowStatus::approximated);
  EXPECT_NE(custom->detail.find("dimensions 1536 assumed"), std::string::npos) << custom->detail;
}

TEST(LiteLLMImport, CostsPerTokenBecomePricesPerMillion) {
  const auto r = import_litellm(R"(
model_list:
  - model_name: house
    litellm_params: { model: openai/house-model, api_base: "https://llm.example.com/v1",
                      input_cost_per_token: 0.0000025, output_cost_per_token: 1.0e-05 }
  - model_name: unpriced
    litellm_params: { model: hosted_vllm/some-model, api_base: "http://10.0.0.5:8000/v1" }
)");
  const auto c = litellm_load_written(r);
  ASSERT_TRUE(c.catalog.at("house").prices.has_value());
  EXPECT_EQ(c.catalog.at("house").prices->input, 2'500'000);
  EXPECT_EQ(c.catalog.at("house").prices->output, 10'000'000);
  ASSERT_TRUE(c.catalog.at("unpriced").prices.has_value());
  EXPECT_EQ(c.catalog.at("unpriced").prices->input, 0);
  const auto* row = litellm_row_of(r, "model_list[1] (unpriced)");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, RowStatus::approximated);
  EXPECT_NE(row->detail.find("priced 0"), std::string::npos);
  EXPECT_NE(r.config_yaml.find("base_url: \"http://10.0.0.5:8000/v1\""), std::string::npos);
}

TEST(LiteLLMImport, UnsupportedProvidersAreLeftOutWithAReason) {
  const auto r = import_litellm(R"(
model_list:
  - model_name: claude-bedrock
    litellm_params: { model: bedrock/anthropic.claude-instant-v1, aws_secret_access_key: UNITawsSecretValue }
  - model_name: mini
    litellm_params: { model: openai/gpt-4o-mini }
)");
  const auto c = litellm_load_written(r);
  EXPECT_EQ(c.catalog.count("claude-bedrock"), 0u);
  const auto* row = litellm_row_of(r, "model_list[0] (claude-bedrock)");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->status, RowStatus::unsupported);
  EXPECT_NE(row->detail.find("SigV4"), std::string::npos);
  EXPECT_EQ(litellm_everything(r).find("UNITawsSecretValue"), std::string::npos);
}

TEST(LiteLLMImport, BudgetsAndKeyLimitsBecomeCommandsAndRateLimits) {
  const auto r = import_litellm(R"(
model_list:
  - model_name: mini
    litellm_params: { model: openai/gpt-4o-mini }
litellm_settings:
  max_budget: 70
  budget_duration: 7d
  default_key_generate_params: { max_budget: 5, budget_duration: 1d, rpm_limit: 60, tpm_limit: 90000 }
  default_team_settings:
    - team_id: research
general_settings:
  master_key: os.environ/LITELLM_MASTER_KEY
)");
  const auto c = litellm_load_written(r);
  EXPECT_EQ(c.rate_limits.key_requests_per_minute, 60);
  EXPECT_EQ(c.rate_limits.key_tokens_per_minute, 90000);
  const auto* budget = litellm_row_of(r, "litellm_settings.max_budget");
  ASSERT_NE(budget, nullptr);
  EXPECT_EQ(budget->status, RowStatus::by_hand);
  EXPECT_NE(budget->detail.find("modelgw budgets create --tenant default --window day --limit 10"),
            std::string::npos)
      << budget->detail;
  const auto* key_budget = litellm_row_of(r, "litellm_settings.default_key_generate_params.max_budget");
  ASSERT_NE(key_budget, nullptr);
  EXPECT_NE(key_budget->detail.find("--key-id KEY_ID --window day --limit 5"), std::string::npos)
      << key_budget->detail;
  const auto* team = litellm_row_of(r, "litellm_settings.default_team_settings[0]");
  ASSERT_NE(team, nullptr);
  EXPECT_NE(team->detail.find("modelgw tenants create research"), std::string::npos);
}

TEST(LiteLLMImport, SettingsWithoutEquivalentAreUnsupportedAndSaySo) {
  const auto r = import_litellm(R"(
model_list:
  - model_name: mini
    litellm_params: { model: openai/gpt-4o-mini }
router_settings: { redis_host: redis.internal, cooldown_time: 30, routing_strategy: latency-based-routing }
litellm_settings: { success_callback: ["langfuse"], cache: true, drop_params: true, request_timeout: 45 }
)");
  for (const char* s : {"router_settings.redis_host", "router_settings.cooldown_time",
                        "litellm_settings.cache", "litellm_settings.success_callback"}) {
    const auto* row = litellm_row_of(r, s);
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->status, RowStatus::unsupported) << s;
    EXPECT_FALSE(row->detail.empty());
  }
  EXPECT_EQ(litellm_row_of(r, "router_settings.routing_strategy")->status, RowStatus::approximated);
  const auto c = litellm_load_written(r);
  EXPECT_TRUE(c.catalog.at("mini").drop_unsupported_params);
  EXPECT_EQ(c.providers[0].timeout_ms, 45000);
}

TEST(LiteLLMImport, OptionsNameThePluginAndStateFolders) {
  modelgw::importer::ImportOptions options;
  options.plugins_dir = "/opt/mgw/plugins";
  options.state_dir = "/srv/mgw";
  const auto r =
      import_litellm("model_list:\n  - {model_name: m, litellm_params: {model: openai/gpt-4o}}\n", options);
  const auto c = litellm_load_written(r);
  EXPECT_EQ(c.plugins_dir, "/opt/mgw/plugins");
  EXPECT_EQ(c.storage.options.at("path"), "/srv/mgw/modelgw.db");
  EXPECT_EQ(c.usage.journal_path, "/srv/mgw/usage.journal");
  EXPECT_EQ(c.server.port, 4000);
}

std::string litellm_import_error(const std::string& text) {
  try {
    import_litellm(text);
  } catch (const ImportError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(LiteLLMImport, AFileThatIsNoLiteLLMConfigIsRefusedWithAShortQuote) {
  const std::string long_line = "just some text that goes on " + std::string(200, 'x');
  const auto plain = litellm_import_error(long_line);
  EXPECT_NE(plain.find("not a LiteLLM config"), std::string::npos) << plain;
  EXPECT_LT(plain.size(), 160u) << plain;
  EXPECT_NE(litellm_import_error("server:\n  listen: x\nproviders: {}\n").find("found: server, providers"),
            std::string::npos);
  EXPECT_NE(litellm_import_error("model_list: [\n").find("not valid YAML"), std::string::npos);
  EXPECT_NE(litellm_import_error("general_settings: {master_key: sk-x}\n").find("nothing to import"),
            std::string::npos);
  try {
    import_litellm(
        "model_list:\n  - {model_name: x, litellm_params: {model: bedrock/foo, api_key: sk-UNITonly}}\n");
    ADD_FAILURE() << "nothing servable must fail";
  } catch (const ImportError& e) {
    ASSERT_FALSE(e.rows.empty());
    EXPECT_EQ(e.rows[0].status, RowStatus::unsupported);
  }
}

TEST(LiteLLMImport, YamlStringsEscapeQuotesAndLiteralDollars) {
  EXPECT_EQ(modelgw::importer::yaml_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(modelgw::importer::yaml_string("x${Y}"), "\"x$${Y}\"");
  EXPECT_EQ(modelgw::importer::yaml_string("x${Y}", true), "\"x${Y}\"");
  EXPECT_EQ(modelgw::importer::usd_text(2'500'000), "2.5");
  EXPECT_EQ(modelgw::importer::usd_text(590'000), "0.59");
  EXPECT_EQ(modelgw::importer::usd_text(0), "0");
}

TEST(LiteLLMImport, TheReportIsAnAlignedTable) {
  const std::string table = modelgw::importer::format_report(
      {{"a", RowStatus::imported, "one"}, {"longer.setting", RowStatus::by_hand, "line 1\nline 2"}});
  EXPECT_NE(table.find("SETTING         STATUS        DETAIL\n"), std::string::npos) << table;
  EXPECT_NE(table.find("a               imported      one\n"), std::string::npos) << table;
  EXPECT_NE(table.find("longer.setting  by hand       line 1\n                              line 2\n"),
            std::string::npos)
      << table;
}

}  // namespace
