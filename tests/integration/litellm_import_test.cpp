// `modelgw import litellm`: the real binary on real LiteLLM configs
// (tests/integration/litellm/): the import succeeds, the written file passes
// `modelgw check-config` with the built plugins, the report has the rows each
// config calls for, the "by hand" commands run, no secret written in a config
// appears in anything printed or written, and an imported config serves chat
// through the fake upstream.
#include "harness/checks.h"
#include "harness/fake_upstream.h"
#include "harness/gateway.h"
#include "harness/http_client.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace it {
namespace {

std::string litellm_read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void litellm_write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string litellm_fixture(const std::string& name) {
  return std::string(LITELLM_FIXTURES_DIR).append("/").append(name);
}

// Every literal secret of a fixture: sk-... keys and the FAKE... values.
std::vector<std::string> litellm_secrets_of(const std::string& text) {
  std::vector<std::string> out;
  static const std::regex pattern(R"(sk-[A-Za-z0-9-]{3,}|FAKE[A-Za-z0-9]+)");
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it)
    out.push_back(it->str());
  return out;
}

// A report line: the setting, spaces, the status.
bool litellm_has_row(const std::string& report, const std::string& setting, const std::string& status) {
  std::istringstream lines(report);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(setting + " ", 0) != 0) continue;
    const auto rest = line.find_first_not_of(' ', setting.size());
    if (rest != std::string::npos && line.compare(rest, status.size(), status) == 0) return true;
  }
  return false;
}

class LiteLLMImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "modelgw-litellm-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string out_path() const { return dir_ + "/modelgw.yaml"; }

  RunResult import(const std::string& file, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args{"import",        "litellm",          file,          "--out", out_path(),
                                  "--plugins-dir", MODELGW_PLUGIN_DIR, "--state-dir", dir_};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_to_exit(MODELGW_BIN, args, Env{});
  }

  static RunResult check_config(const std::string& path, const Env& env = {}) {
    return run_to_exit(MODELGW_BIN, {"check-config", path}, env);
  }

  // Imports a fixture, checks the written file, and that no secret of it
  // appears in stdout, stderr or the file. Returns the report.
  std::string import_and_check(const std::string& name, const Env& env = {}) {
    const std::string source = litellm_read_text(litellm_fixture(name));
    const auto r = import(litellm_fixture(name));
    EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
    const std::string written = litellm_read_text(out_path());
    EXPECT_FALSE(written.empty());
    const auto check = check_config(out_path(), env);
    EXPECT_EQ(check.exit_code, 0) << check.err << "\n" << written;
    EXPECT_NE(check.out.find("OK"), std::string::npos) << check.out;
    for (const auto& secret : litellm_secrets_of(source)) {
      EXPECT_EQ(r.out.find(secret), std::string::npos) << secret << " printed:\n" << r.out;
      EXPECT_EQ(r.err.find(secret), std::string::npos) << secret << " printed:\n" << r.err;
      EXPECT_EQ(written.find(secret), std::string::npos) << secret << " written:\n" << written;
    }
    return r.out;
  }

  std::string dir_;
};

TEST_F(LiteLLMImportTest, ThreeVendorsByPrefix) {
  const auto report = import_and_check("three_vendors.yaml");
  EXPECT_TRUE(litellm_has_row(report, "model_list[0] (gpt-4o)", "imported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "model_list[1] (claude-sonnet)", "imported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "model_list[2] (gemini-flash)", "imported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "router_settings.num_retries", "imported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "router_settings.timeout", "imported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "router_settings.stream_timeout", "approximated")) << report;
  EXPECT_TRUE(litellm_has_row(report, "router_settings.routing_strategy", "approximated")) << report;
  EXPECT_TRUE(litellm_has_row(report, "litellm_settings.drop_params", "imported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "litellm_settings.success_callback", "unsupported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "model_list[2].litellm_params.temperature", "unsupported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "environment", "by hand")) << report;
  const std::string written = litellm_read_text(out_path());
  for (const char* line : {"api_key: \"${OPENAI_API_KEY}\"", "api_key: \"${ANTHROPIC_API_KEY}\"",
                           "api_key: \"${GEMINI_API_KEY}\"", "plugin: anthropic", "plugin: gemini",
                           "max_attempts: 3", "drop_unsupported_params: true"}) {
    EXPECT_NE(written.find(line), std::string::npos) << line << "\n" << written;
  }
  EXPECT_NE(report.find("wrote " + out_path()), std::string::npos) << report;
}

TEST_F(LiteLLMImportTest, AzureGroupFallbacksAndAliases) {
  const auto report = import_and_check("azure_group_fallbacks.yaml");
  EXPECT_TRUE(litellm_has_row(report, "model_list[0] (gpt-4o)", "approximated")) << report;
  EXPECT_NE(report.find("api_version 2024-10-21 is not sent"), std::string::npos) << report;
  EXPECT_TRUE(litellm_has_row(report, "model_list: model_name gpt-4o", "approximated")) << report;
  EXPECT_TRUE(litellm_has_row(report, "router_settings.fallbacks[0]", "approximated")) << report;
  EXPECT_TRUE(litellm_has_row(report, "router_settings.context_window_fallbacks[0]", "approximated"))
      << report;
  EXPECT_TRUE(litellm_has_row(report, "router_settings.model_group_alias.gpt-4", "imported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "router_settings.model_group_alias.gpt-3.5-turbo", "approximated"))
      << report;
  EXPECT_TRUE(litellm_has_row(report, "router_settings.cooldown_time", "unsupported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "model_list[0].litellm_params.rpm", "unsupported")) << report;
  const std::string written = litellm_read_text(out_path());
  EXPECT_NE(written.find("route: [\"gpt-4o@openai\", \"gpt-4o@azure\", \"claude-opus\"]"), std::string::npos)
      << "rpm 900 ranks before rpm 600, then the fallback:\n"
      << written;
  EXPECT_NE(written.find("base_url: \"https://my-endpoint-europe-berri-992.openai.azure.com/openai/v1\""),
            std::string::npos)
      << written;
  EXPECT_NE(written.find("\"api-key\": \"${AZURE_API_KEY_EU}\""), std::string::npos) << written;
}

TEST_F(LiteLLMImportTest, CompatibleHostsAndEmbeddings) {
  const auto report = import_and_check("compatible_hosts.yaml");
  EXPECT_TRUE(litellm_has_row(report, "model_list[0] (llama-local)", "approximated")) << report;
  EXPECT_TRUE(litellm_has_row(report, "model_list[1] (llama-groq)", "imported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "model_list[2] (qwen-ollama)", "approximated")) << report;
  EXPECT_TRUE(litellm_has_row(report, "model_list[5] (claude-bedrock)", "unsupported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "model_list[1].input_cost_per_token/output_cost_per_token", "imported"))
      << report;
  const std::string written = litellm_read_text(out_path());
  for (const char* line :
       {"base_url: \"http://vllm.internal:8000/v1\"", "base_url: \"https://api.groq.com/openai/v1\"",
        "base_url: \"http://localhost:11434/v1\"", "prices: { input: 0.59, output: 0.79 }"}) {
    EXPECT_NE(written.find(line), std::string::npos) << line << "\n" << written;
  }
  // Both embedding models are entries of kind embedding.
  const auto embedding = written.find(
      "\"text-embedding-3-small\":\n    provider: \"openai\"\n    model: "
      "\"text-embedding-3-small\"\n    kind: embedding\n    dimensions: 1536");
  EXPECT_NE(embedding, std::string::npos) << written;
  EXPECT_NE(written.find("kind: embedding\n    dimensions: 3072\n    max_inputs: 100"), std::string::npos)
      << written;
  EXPECT_EQ(written.find("claude-bedrock"), std::string::npos) << written;
}

TEST_F(LiteLLMImportTest, ProxyAdminSettingsBecomeCommandsThatRun) {
  const auto report = import_and_check("proxy_admin.yaml");
  EXPECT_TRUE(litellm_has_row(report, "general_settings.master_key", "by hand")) << report;
  EXPECT_TRUE(litellm_has_row(report, "general_settings.database_url", "unsupported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "general_settings.alerting", "unsupported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "router_settings.redis_host", "unsupported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "router_settings.redis_password", "unsupported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "litellm_settings.cache", "unsupported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "litellm_settings.max_budget", "by hand")) << report;
  EXPECT_TRUE(
      litellm_has_row(report, "litellm_settings.default_key_generate_params.rpm_limit", "approximated"))
      << report;
  EXPECT_TRUE(litellm_has_row(report, "litellm_settings.default_team_settings[0]", "by hand")) << report;
  EXPECT_TRUE(litellm_has_row(report, "model_list[0].litellm_params.api_key", "by hand")) << report;
  EXPECT_TRUE(litellm_has_row(report, "environment_variables.SLACK_WEBHOOK_URL", "unsupported")) << report;
  const std::string written = litellm_read_text(out_path());
  EXPECT_NE(written.find("key_requests_per_minute: 60"), std::string::npos) << written;
  EXPECT_NE(written.find("key_tokens_per_minute: 100000"), std::string::npos) << written;

  // The "by hand" lines, run as printed against the written config.
  const std::vector<std::vector<std::string>> commands{
      {"tenants", "create", "operator"},
      {"keys", "create", "--tenant", "operator", "--scopes", "admin"},
      {"tenants", "create", "default"},
      {"keys", "create", "--tenant", "default", "--scopes", "chat"},
      {"budgets", "create", "--tenant", "default", "--window", "month", "--limit", "100"},
      {"tenants", "create", "research"},
      {"keys", "create", "--tenant", "research", "--scopes", "chat"},
  };
  for (const auto& words : commands) {
    std::string line = "modelgw";
    for (const auto& w : words) line += " " + w;
    EXPECT_NE(report.find(line), std::string::npos) << line << " not in the report:\n" << report;
    auto args = words;
    args.push_back("--config");
    args.push_back(out_path());
    const auto r = run_to_exit(MODELGW_BIN, args, Env{});
    EXPECT_EQ(r.exit_code, 0) << line << ": " << r.err;
  }
  // The per-key budget, with the id keys create printed.
  const auto key =
      run_to_exit(MODELGW_BIN, {"keys", "create", "--tenant", "default", "--config", out_path()}, Env{});
  ASSERT_EQ(key.exit_code, 0) << key.err;
  const auto id_at = key.err.find("key id ");
  ASSERT_NE(id_at, std::string::npos) << key.err;
  const std::string id = key.err.substr(id_at + 7, key.err.find(' ', id_at + 7) - id_at - 7);
  EXPECT_NE(report.find("modelgw budgets create --tenant default --key-id KEY_ID --window day --limit 25"),
            std::string::npos)
      << report;
  const auto budget = run_to_exit(MODELGW_BIN,
                                  {"budgets", "create", "--tenant", "default", "--key-id", id, "--window",
                                   "day", "--limit", "25", "--config", out_path()},
                                  Env{});
  EXPECT_EQ(budget.exit_code, 0) << budget.err;
}

TEST_F(LiteLLMImportTest, DocsQuickstartWithLiteralKeys) {
  const auto report = import_and_check("docs_quickstart.yaml");
  EXPECT_TRUE(litellm_has_row(report, "model_list[1] (bedrock-claude-v1)", "unsupported")) << report;
  EXPECT_TRUE(litellm_has_row(report, "model_list[5].litellm_params.api_key", "by hand")) << report;
  EXPECT_TRUE(litellm_has_row(report, "litellm_settings.default_fallbacks", "approximated")) << report;
  EXPECT_TRUE(litellm_has_row(report, "litellm_settings.set_verbose", "approximated")) << report;
  EXPECT_TRUE(litellm_has_row(report, "general_settings.master_key", "by hand")) << report;
  const std::string written = litellm_read_text(out_path());
  EXPECT_NE(written.find("route: [\"gpt-3.5-turbo@azure\", \"gpt-3.5-turbo@azure-2\", \"gpt-4o\"]"),
            std::string::npos)
      << written;
  EXPECT_NE(written.find("api_key: \"${OPENAI_API_KEY}\""), std::string::npos) << written;
  EXPECT_NE(written.find("level: debug"), std::string::npos) << written;
}

TEST_F(LiteLLMImportTest, WithoutOutTheConfigGoesToStdoutAndTheReportToStderr) {
  const auto r = run_to_exit(
      MODELGW_BIN,
      {"import", "litellm", litellm_fixture("three_vendors.yaml"), "--plugins-dir", MODELGW_PLUGIN_DIR},
      Env{});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("# modelgw configuration", 0), 0u) << r.out;
  EXPECT_NE(r.err.find("SETTING"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("SETTING"), std::string::npos);
  litellm_write_text(dir_ + "/piped.yaml", r.out);
  const auto check = check_config(dir_ + "/piped.yaml");
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

TEST_F(LiteLLMImportTest, AnExistingOutIsReplacedOnlyWithForce) {
  litellm_write_text(out_path(), "keep me\n");
  const auto refused = import(litellm_fixture("three_vendors.yaml"));
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("--force"), std::string::npos) << refused.err;
  EXPECT_EQ(litellm_read_text(out_path()), "keep me\n");
  const auto forced = import(litellm_fixture("three_vendors.yaml"), {"--force"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_NE(litellm_read_text(out_path()).find("providers:"), std::string::npos);
}

TEST_F(LiteLLMImportTest, NotALiteLLMConfigAndUsageErrors) {
  litellm_write_text(dir_ + "/modelgw.example.yaml",
                     "server:\n  listen: \"127.0.0.1:8080\"\nproviders: {}\ncatalog: {}\n");
  const auto other = import(dir_ + "/modelgw.example.yaml");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("not a LiteLLM config"), std::string::npos) << other.err;
  EXPECT_FALSE(std::filesystem::exists(out_path()));

  const std::string secret_text = "password=FAKEtopSecretValueThatIsLong and more text after it\n";
  litellm_write_text(dir_ + "/notes.txt", secret_text);
  const auto text = import(dir_ + "/notes.txt");
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.err.find("not a LiteLLM config"), std::string::npos) << text.err;
  EXPECT_EQ(text.err.find("FAKEtopSecretValueThatIsLong"), std::string::npos)
      << "more than a short prefix: " << text.err;

  EXPECT_EQ(run_to_exit(MODELGW_BIN, {"import"}, Env{}).exit_code, 2);
  EXPECT_EQ(run_to_exit(MODELGW_BIN, {"import", "litellm"}, Env{}).exit_code, 2);
  EXPECT_EQ(
      run_to_exit(MODELGW_BIN, {"import", "portkey", litellm_fixture("three_vendors.yaml")}, Env{}).exit_code,
      2);
  EXPECT_EQ(run_to_exit(MODELGW_BIN, {"import", "litellm", dir_ + "/missing.yaml"}, Env{}).exit_code, 2);
  EXPECT_EQ(run_to_exit(MODELGW_BIN,
                        {"import", "litellm", litellm_fixture("three_vendors.yaml"), "--colour", "x"}, Env{})
                .exit_code,
            2);
  const auto help = run_to_exit(MODELGW_BIN, {"help"}, Env{});
  EXPECT_NE(help.out.find("import litellm FILE"), std::string::npos) << help.out;
}

// An imported config serving chat: a group whose first deployment fails
// (503) falls back to the second, and an Anthropic model answers, both
// through the fake upstream.
TEST_F(LiteLLMImportTest, AnImportedConfigServesChatThroughTheFakeUpstream) {
  FakeUpstream fake(kProviderKey);
  const std::string base = "http://127.0.0.1:" + std::to_string(fake.port());
  litellm_write_text(dir_ + "/litellm.yaml",
                     "model_list:\n"
                     "  - model_name: house-chat\n"
                     "    litellm_params:\n"
                     "      model: openai/gpt-4o-mini+status=503\n"
                     "      api_base: " +
                         base +
                         "/v1\n"
                         "      api_key: os.environ/FAKE_KEY\n"
                         "      order: 1\n"
                         "  - model_name: house-chat\n"
                         "    litellm_params:\n"
                         "      model: openai/gpt-4o-mini\n"
                         "      api_base: " +
                         base +
                         "/v1\n"
                         "      api_key: os.environ/FAKE_KEY\n"
                         "      order: 2\n"
                         "  - model_name: claude\n"
                         "    litellm_params:\n"
                         "      model: anthropic/claude-haiku-4-5\n"
                         "      api_base: " +
                         base +
                         "\n"
                         "      api_key: os.environ/FAKE_KEY\n"
                         "router_settings:\n"
                         "  num_retries: 0\n");
  GatewayOptions options;
  options.upstream_port = fake.port();
  Gateway gateway(options);
  const auto r = run_to_exit(MODELGW_BIN,
                             {"import", "litellm", dir_ + "/litellm.yaml", "--plugins-dir",
                              MODELGW_PLUGIN_DIR, "--state-dir", gateway.dir()},
                             Env{});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string listen = "listen: \"127.0.0.1:4000\"";
  ASSERT_NE(r.out.find(listen), std::string::npos) << r.out;
  gateway.write_config(
      replace_once(r.out, listen, "listen: \"127.0.0.1:" + std::to_string(gateway.port()) + "\""));
  gateway.create_tenant("acme");
  const auto key = gateway.create_key("acme");
  gateway.start();

  const auto tier = post_chat(gateway.port(), key.key, chat_body("house-chat", "litellm-import-tier"));
  ASSERT_EQ(tier.status, 200) << tier.body;
  EXPECT_EQ(tier.json()["model"], "house-chat@local-2") << tier.body;
  EXPECT_FALSE(tier.json()["choices"][0]["message"]["content"].get<std::string>().empty());

  const auto claude = post_chat(gateway.port(), key.key, chat_body("claude", "litellm-import-claude"));
  ASSERT_EQ(claude.status, 200) << claude.body;
  EXPECT_EQ(claude.json()["model"], "claude");
}

}  // namespace
}  // namespace it
