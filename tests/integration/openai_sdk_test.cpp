// The official `openai` npm client against the real gateway: starts a stack
// with one alias per vendor and runs tests/sdk/openai_sdk_test.mjs (chat) and
// tests/sdk/openai_responses_test.mjs (the Responses API) and
// tests/sdk/openai_agents_test.mjs (an OpenAI Agents SDK run) under
// `node --test`. Needs `node` on PATH and `npm ci` run at the repository root
// (package.json pins `openai`); without them the test fails, it never skips.
#include "harness/checks.h"
#include "harness/stack.h"

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace it {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

// This file is tests/integration/openai_sdk_test.cpp; CMake compiles it by
// its absolute path.
fs::path repository_root() {
  return fs::path(__FILE__).parent_path().parent_path().parent_path();
}

// `node` from PATH, or an empty path.
fs::path find_node() {
  return find_on_path("node");
}

// Whether the fake's OpenAI route answers a tools request with a tool call
// (its README describes tool answers for Anthropic and Gemini only).
bool fake_openai_answers_tool_calls(int fake_port) {
  HttpRequest probe;
  probe.body = json({{"model", "gpt-4o-mini"},
                     {"messages", user_messages("probe tool support")},
                     {"tools", json::array({{{"type", "function"}, {"function", {{"name", "probe"}}}}})}})
                   .dump();
  probe.headers = {{"Authorization", std::string("Bearer ") + kProviderKey}};
  const auto r = http_call(fake_port, probe);
  json body = r.json();
  return r.status == 200 && body.is_object() && body["choices"][0]["message"].contains("tool_calls");
}

GatewayOptions sdk_options() {
  GatewayOptions options;
  options.catalog = {
      {"gpt", "openai", "gpt-4o-mini"},
      {"claude", "anthropic", "claude-sonnet-4-5"},
      {"gemini", "gemini", "gemini-2.5-flash"},
      // The Responses API sent natively (the openai plugin's native_operations).
      {"gpt-native", "openai-native", "gpt-4o-mini"},
  };
  // Embedding models (POST /v1/embeddings) through the openai and gemini plugins.
  options.extra_catalog_yaml =
      "  emb: { provider: openai, model: text-embedding-3-small, kind: embedding, dimensions: 1536,"
      " prices: { input: 0.02, output: 0 } }\n"
      "  emb-gemini: { provider: gemini, model: gemini-embedding-001, kind: embedding, dimensions: 3072,"
      " max_inputs: 2, prices: { input: 0.15, output: 0 } }\n";
  return options;
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

// Runs tests/sdk/<script> under `node --test` against a stack with one alias
// per vendor; the script must pass and reach every alias.
// `native_tools`: the script speaks the Responses API, whose native fake
// (gpt-native) answers tools with a function call.
void run_sdk_script(const std::string& script_name,
                    const std::vector<std::string>& must_run = {"gpt", "claude", "gemini"},
                    bool native_tools = false) {
  const fs::path root = repository_root();
  const fs::path script = root / "tests/sdk" / script_name;
  ASSERT_TRUE(fs::is_regular_file(script)) << "missing " << script;
  const fs::path node = find_node();
  ASSERT_FALSE(node.empty()) << "`node` is not on PATH; the scripts install Node.js for this test";
  ASSERT_TRUE(fs::is_regular_file(root / "node_modules/openai/package.json"))
      << "node_modules/openai is missing under " << root
      << ": run `npm ci` at the repository root (package.json pins the openai SDK)";
  ASSERT_TRUE(fs::is_regular_file(root / "node_modules/@anthropic-ai/sdk/package.json"))
      << "node_modules/@anthropic-ai/sdk is missing under " << root
      << ": run `npm ci` at the repository root";

  auto stack = start_stack(sdk_options());
  std::string tool_aliases = native_tools ? "claude,gemini,gpt-native" : "claude,gemini";
  if (fake_openai_answers_tool_calls(stack->fake->port())) tool_aliases += ",gpt";

  const Env env = {
      {"MODELGW_BASE_URL", "http://127.0.0.1:" + std::to_string(stack->port()) + "/v1"},
      {"MODELGW_ROOT_URL", "http://127.0.0.1:" + std::to_string(stack->port())},
      {"MODELGW_EMBEDDING_ALIASES", "emb,emb-gemini"},
      {"MODELGW_API_KEY", stack->key.key},
      {"MODELGW_ALIASES", "gpt,claude,gemini,gpt-native"},
      {"MODELGW_TOOL_ALIASES", tool_aliases},
      {"MODELGW_FAKE_BASE_URL", "http://127.0.0.1:" + std::to_string(stack->fake->port()) + "/v1"},
      {"MODELGW_FAKE_API_KEY", kProviderKey},
      {"NO_PROXY", "127.0.0.1"},
      {"no_proxy", "127.0.0.1"},
      {"NODE_OPTIONS", ""},
  };
  const auto started = Clock::now();
  const RunResult run =
      run_to_exit(node.string(), {"--test", "--test-reporter=spec", script.string()}, env, 60s);

  EXPECT_EQ(run.exit_code, 0) << "node --test " << script << " exited " << run.exit_code
                              << (run.exit_code == -1 ? " (killed after 60 s)" : "") << "\n--- stdout ---\n"
                              << run.out << "\n--- stderr ---\n"
                              << run.err;
  EXPECT_LT(Clock::now() - started, 60s);
  // The run must have exercised every alias, not stopped at the environment check.
  for (const std::string& alias : must_run) {
    EXPECT_NE(run.out.find("alias " + alias), std::string::npos) << alias << " never ran:\n" << run.out;
  }
  // The SDK's requests never reach the log with the provider key.
  EXPECT_EQ(stack->gateway->log().find(kProviderKey), std::string::npos);
}

TEST(OpenAiSdkTest, OfficialClientPassesAgainstEveryVendor) {
  run_sdk_script("openai_sdk_test.mjs");
}

// client.responses (the Responses API), plain, streamed and with tools.
TEST(OpenAiSdkTest, OfficialResponsesClientPassesAgainstEveryVendor) {
  run_sdk_script("openai_responses_test.mjs", {"gpt", "claude", "gemini", "gpt-native"}, true);
}

// client.embeddings (the SDK's default base64 and explicit floats), through
// the openai plugin's /v1/embeddings and the gemini plugin's batches.
TEST(OpenAiSdkTest, OfficialEmbeddingsClientPassesAgainstEachEmbeddingVendor) {
  run_sdk_script("openai_embeddings_test.mjs", {"emb", "emb-gemini"});
}

// The official @anthropic-ai/sdk: messages.create, messages.stream,
// messages.countTokens and tool use over two turns, natively to the anthropic
// plugin and translated for the others.
TEST(AnthropicSdkTest, OfficialClientPassesAgainstEveryVendor) {
  run_sdk_script("anthropic_sdk_test.mjs", {"gpt", "claude", "gemini"});
}

// The OpenAI Agents SDK: an agent run with a tool call, over the Responses
// API, through each vendor whose fake answers with tool calls.
TEST(OpenAiSdkTest, AgentsSdkRunWithAToolCallPassesAgainstEveryToolVendor) {
  run_sdk_script("openai_agents_test.mjs", {"claude", "gemini", "gpt-native"}, true);
}

// The Codex CLI (`codex exec`, from package.json's @openai/codex) through the
// gateway's Responses API: one turn, offline, the gateway as its model
// provider. Its request carries what a coding agent sends (developer
// messages, namespaced and hosted tools, client_metadata, store: false).
TEST(CodexCliTest, OneExecTurnGoesThroughTheGateway) {
  const fs::path root = repository_root();
  const fs::path codex = root / "node_modules/.bin/codex";
  ASSERT_TRUE(fs::exists(codex)) << codex << " is missing: run `npm ci` at the repository root";
  auto stack = start_stack(sdk_options());
  // Codex keeps its sessions under HOME: a folder of this test's own, removed at the end.
  std::string pattern = (fs::temp_directory_path() / "modelgw-codex-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  struct Removed {
    fs::path path;
    ~Removed() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  } home{pattern};
  const fs::path codex_home = home.path / ".codex";
  fs::create_directories(codex_home);
  {
    std::ofstream config(codex_home / "config.toml");
    config << "model = \"gpt\"\n"
           << "model_provider = \"modelgw\"\n"
           << "[model_providers.modelgw]\n"
           << "name = \"modelgw\"\n"
           << "base_url = \"http://127.0.0.1:" << stack->port() << "/v1\"\n"
           << "env_key = \"MODELGW_API_KEY\"\n"
           << "wire_api = \"responses\"\n";
  }
  const Env env = {
      {"HOME", home.path.string()}, {"CODEX_HOME", codex_home.string()}, {"MODELGW_API_KEY", stack->key.key},
      {"NO_PROXY", "127.0.0.1"},    {"no_proxy", "127.0.0.1"},
  };
  // In the empty home, not the test's working directory (see ClaudeCodeTest).
  const RunResult run = run_to_exit(
      "/usr/bin/env",
      {"-C", home.path.string(), codex.string(), "exec", "--skip-git-repo-check", "say hi codex"}, env, 90s);
  ASSERT_EQ(run.exit_code, 0) << "codex exec exited " << run.exit_code << "\n--- stdout ---\n"
                              << run.out << "\n--- stderr ---\n"
                              << run.err;
  EXPECT_NE(run.out.find("echo: say hi codex"), std::string::npos) << run.out;
  // It came through /v1/responses, recorded as such.
  ASSERT_TRUE(stack->gateway->wait_log("\"path\":\"/v1/responses\",\"status\":200", 5s))
      << stack->gateway->log();
  EXPECT_EQ(stack->gateway->log().find(kProviderKey), std::string::npos);
}

// Claude Code (`claude -p`, from package.json's @anthropic-ai/claude-code)
// through the gateway's Messages API: one print-mode turn, offline, with
// ANTHROPIC_BASE_URL set to the gateway and a gateway key as its API key. Its
// requests carry what a coding agent sends (system blocks with cache_control,
// its tools, thinking, metadata.user_id, anthropic-beta), served natively by
// the anthropic plugin.
TEST(ClaudeCodeTest, OnePrintTurnGoesThroughTheGateway) {
  const fs::path root = repository_root();
  const fs::path claude = root / "node_modules/.bin/claude";
  ASSERT_TRUE(fs::exists(claude)) << claude << " is missing: run `npm ci` at the repository root";
  auto stack = start_stack(sdk_options());
  std::string pattern = (fs::temp_directory_path() / "modelgw-claude-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  struct Removed {
    fs::path path;
    ~Removed() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  } home{pattern};
  const Env env = {
      {"HOME", home.path.string()},
      {"ANTHROPIC_BASE_URL", "http://127.0.0.1:" + std::to_string(stack->port())},
      {"ANTHROPIC_API_KEY", stack->key.key},
      // Offline: no telemetry, error reporting or update checks.
      {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"},
      {"DISABLE_AUTOUPDATER", "1"},
      {"NO_PROXY", "127.0.0.1"},
      {"no_proxy", "127.0.0.1"},
  };
  // Run in the empty home, not the test's working directory: Claude Code puts
  // the directory's git status into its prompt, so a checkout with changes
  // made the echoed answer (and the next turn) as large as the change list.
  const RunResult run = run_to_exit(
      "/usr/bin/env",
      {"-C", home.path.string(), claude.string(), "-p", "claude-code-marker say hi", "--model", "claude"},
      env, 90s);
  ASSERT_EQ(run.exit_code, 0) << "claude -p exited " << run.exit_code << "\n--- stdout ---\n"
                              << run.out << "\n--- stderr ---\n"
                              << run.err << "\n--- gateway ---\n"
                              << stack->gateway->log();
  EXPECT_NE(run.out.find("echo:"), std::string::npos) << run.out;
  // It came through /v1/messages to the vendor's own API, recorded as such.
  const json sent = stack->fake->find_request("claude-code-marker");
  ASSERT_TRUE(sent.is_object()) << stack->gateway->log();
  EXPECT_EQ(sent["path"], "/v1/messages");
  EXPECT_EQ(sent["body"]["model"], "claude-sonnet-4-5");
  ASSERT_TRUE(stack->gateway->wait_log("\"path\":\"/v1/messages\",\"status\":200", 5s))
      << stack->gateway->log();
  EXPECT_EQ(stack->gateway->log().find(kProviderKey), std::string::npos);
}

}  // namespace
}  // namespace it
