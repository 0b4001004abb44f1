// modelgw storage copy, from the outside: an SQLite deployment with history
// (tenants, keys, prompts, budgets and credits spent, usage, audit chains) is
// copied into PostgreSQL; a gateway on the copy serves the same keys with the
// same standing; the copy verifies, runs again as a no-op (resumable), and
// refuses a destination that holds another deployment. Stored responses of the
// Responses API (ABI 1.9) move too, expired ones included, byte for byte.
#include "harness/checks.h"
#include "harness/postgres_cluster.h"
#include "harness/stack.h"

#include <sqlite3.h>

#include <fstream>

namespace it {
namespace {

using namespace std::chrono_literals;

constexpr const char* kCopyAliases =
    "  pricey: { provider: openai, model: \"gpt-4o-mini\", context_window: 128000, max_output_tokens: 1000, "
    "prices: { input: 1000, output: 1000 } }\n";

// Stores a response in the SQLite file at `path` the way the sqlite plugin
// keeps one (the endpoints that store them are not what this test is about).
void store_response(const std::string& path, std::int64_t tenant_id, const std::string& id,
                    std::int64_t expires_unix_ms) {
  UsageDb(path).exec(
      "INSERT INTO responses (tenant_id, id, previous_id, created_unix_ms, expires_unix_ms, input_json, "
      "response_json) VALUES (" +
      std::to_string(tenant_id) + ", '" + id + "', 'resp_before', 1000, " + std::to_string(expires_unix_ms) +
      ", '[{\"role\":\"user\",\"content\":\"h\u00e9\"}]', '{\"id\":\"" + id + "\",\"output\":[]}')");
}

// One text value from the SQLite file at `path`; "<none>" when no row.
std::string sqlite_text(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string out = "<none>";
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

class StorageCopyTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    try {
      cluster_ = std::make_unique<PostgresCluster>();
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }
  static void TearDownTestSuite() { cluster_.reset(); }

 protected:
  void SetUp() override {
    ASSERT_NE(cluster_, nullptr) << error_;
    fake_ = std::make_unique<FakeUpstream>(kProviderKey);
  }

  GatewayOptions options(const std::string& storage_yaml = {}) const {
    GatewayOptions o;
    o.upstream_port = fake_->port();
    o.extra_catalog_yaml = kCopyAliases;
    o.storage_yaml = storage_yaml;
    return o;
  }

  static HttpResponse chat(int port, const std::string& key, const std::string& text) {
    HttpRequest r;
    r.body = json{{"model", "pricey"}, {"messages", user_messages(text)}, {"max_tokens", 10}}.dump();
    r.headers = {{"Authorization", "Bearer " + key}};
    return http_call(port, r);
  }

  // modelgw storage copy --from <source's config> --to <destination's config>
  static RunResult copy(const Gateway& from, const Gateway& to) {
    return from.cli({"storage", "copy", "--from", from.config_path(), "--to", to.config_path()});
  }

  static inline std::unique_ptr<PostgresCluster> cluster_;
  static inline std::string error_;
  std::unique_ptr<FakeUpstream> fake_;
};

TEST_F(StorageCopyTest, AnSqliteDeploymentMovesToPostgresWithItsHistoryAndStanding) {
  Gateway source(options());
  source.create_tenant("acme");
  source.create_tenant("globex");
  const auto acme = source.create_key("acme", "chat usage:read budgets:read audit:read");
  const auto revoked = source.create_key("globex", "chat");
  ASSERT_EQ(source.cli({"keys", "revoke", std::to_string(revoked.id)}).exit_code, 0);
  const auto globex = source.create_key("globex", "chat usage:read budgets:read");
  // A deleted budget leaves a gap in the ids: the copy keeps the ids anyway.
  ASSERT_EQ(
      source.cli({"budgets", "create", "--tenant", "acme", "--window", "day", "--limit", "1"}).exit_code, 0);
  ASSERT_EQ(
      source.cli({"budgets", "create", "--tenant", "acme", "--window", "month", "--limit", "5"}).exit_code,
      0);
  ASSERT_EQ(source.cli({"budgets", "delete", "1"}).exit_code, 0);
  ASSERT_EQ(source.cli({"credits", "top-up", "--tenant", "globex", "--amount", "2.50"}).exit_code, 0);
  const std::string prompt_file = source.dir() + "/prompt.json";
  std::ofstream(prompt_file)
      << R"({"template": [{"role": "system", "content": "Be {{tone}}."}], "model": "pricey"})";
  ASSERT_EQ(source.cli({"prompts", "add", "--tenant", "acme", "greet", "--file", prompt_file}).exit_code, 0);
  ASSERT_EQ(source.cli({"prompts", "add", "--tenant", "acme", "greet", "--file", prompt_file}).exit_code, 0);
  // A record of another API than chat completions, which only the journal
  // can bring in for now: the gateway replays it into the store at start.
  json journaled = {{"request_id", "req_journaled_responses"},
                    {"tenant_id", 1},  // acme, the first tenant created
                    {"key_id", acme.id},
                    {"alias", "pricey"},
                    {"provider", "openai"},
                    {"upstream_model", "gpt-4o-mini"},
                    {"prompt_tokens", 3},
                    {"completion_tokens", 4},
                    {"total_tokens", 7},
                    {"http_status", 200},
                    {"error_code", ""},
                    {"latency_us", 1000},
                    {"ttft_us", -1},
                    {"streamed", false},
                    {"created_unix_ms", unix_ms_now() - 1000},
                    {"prompt_name", ""},
                    {"prompt_version", 0},
                    {"pii_action", ""},
                    {"pii_findings", ""},
                    {"feature", ""},
                    {"cached_prompt_tokens", 0},
                    {"cost_micros", 7},
                    {"price_input_micros", 1000},
                    {"price_output_micros", 1000},
                    {"price_cached_micros", 0},
                    {"reason", ""},
                    {"charges", json::array()},
                    {"trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"},
                    {"operation", "responses"}};
  std::ofstream(source.dir() + "/usage.journal") << journaled.dump() << "\n";
  source.start();
  for (int i = 0; i < 12; ++i)
    ASSERT_EQ(chat(source.port(), i % 2 ? acme.key : globex.key, "hi").status, 200);
  ASSERT_TRUE(eventually([&] {
    const json u = http_get(source.port(), "/v1/usage", acme.key).json();
    return u.contains("data") && u["data"].size() == 7u;
  }));
  const json usage_before = http_get(source.port(), "/v1/usage?limit=100", acme.key).json();
  const json budgets_before = http_get(source.port(), "/v1/budgets", acme.key).json();
  const json credit_before = http_get(source.port(), "/v1/budgets", globex.key).json()["credit"];
  ASSERT_GT(credit_before["spent_micros"].get<std::int64_t>(), 0);
  ASSERT_EQ(source.stop(), 0);  // the copy runs with the source's gateways stopped
  const auto acme_id = UsageDb(source.db_path()).tenant_id("acme");
  ASSERT_TRUE(acme_id.has_value());
  store_response(source.db_path(), *acme_id, "resp_live", unix_ms_now() + 3'600'000);
  store_response(source.db_path(), *acme_id, "resp_expired", 5000);  // copied too; the target purges it

  Gateway target(options(cluster_->storage_yaml("copied")));
  const auto copied = copy(source, target);
  ASSERT_EQ(copied.exit_code, 0) << copied.out << copied.err;
  EXPECT_NE(copied.out.find("verified"), std::string::npos) << copied.out;
  EXPECT_NE(copied.out.find("usage records: 13"), std::string::npos) << copied.out;
  EXPECT_NE(copied.out.find("responses: 2"), std::string::npos) << copied.out;
  EXPECT_EQ(
      cluster_->sql("SELECT tenant_id || ' ' || previous_id || ' ' || input_json || ' ' || response_json "
                    "FROM copied.responses WHERE id = 'resp_live'"),
      std::to_string(*acme_id) +
          " resp_before [{\"role\":\"user\",\"content\":\"h\u00e9\"}] {\"id\":\"resp_live\","
          "\"output\":[]}")
      << "the response is stored in the destination as it was";

  // Running again resumes a copy that is already whole: nothing changes.
  const auto again = copy(source, target);
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;

  target.start();
  // The same keys work (and the revoked one stays revoked), with the same standing.
  const json usage_after = http_get(target.port(), "/v1/usage?limit=100", acme.key).json();
  ASSERT_EQ(usage_after["data"].size(), usage_before["data"].size());
  for (std::size_t i = 0; i < usage_after["data"].size(); ++i) {
    auto a = usage_after["data"][i];
    auto b = usage_before["data"][i];
    EXPECT_EQ(a["request_id"], b["request_id"]) << "same records, same order";
    EXPECT_EQ(a["cost_micros"], b["cost_micros"]);
    EXPECT_TRUE(b["trace_id"].is_string()) << b.dump();
    EXPECT_EQ(a["trace_id"], b["trace_id"]) << "the copy keeps each record's trace id";
    EXPECT_EQ(a["operation"], b["operation"]) << "and its operation";
  }
  EXPECT_EQ(usage_after["totals"], usage_before["totals"]);
  const json responses = http_get(target.port(), "/v1/usage?operation=responses", acme.key).json();
  ASSERT_EQ(responses["data"].size(), 1u) << responses.dump();
  EXPECT_EQ(responses["data"][0]["request_id"], "req_journaled_responses");
  EXPECT_EQ(responses["data"][0]["operation"], "responses");
  EXPECT_EQ(responses["totals"]["requests"], 1) << "the copy's rollups are kept by operation too";
  EXPECT_EQ(
      http_get(target.port(), "/v1/usage?operation=chat.completions", acme.key).json()["totals"]["requests"],
      6);
  const json budgets_after = http_get(target.port(), "/v1/budgets", acme.key).json();
  ASSERT_EQ(budgets_after["data"].size(), budgets_before["data"].size());
  EXPECT_EQ(budgets_after["data"][0]["id"], budgets_before["data"][0]["id"]);
  EXPECT_EQ(budgets_after["data"][0]["spent_micros"], budgets_before["data"][0]["spent_micros"]);
  EXPECT_EQ(http_get(target.port(), "/v1/budgets", globex.key).json()["credit"]["spent_micros"],
            credit_before["spent_micros"])
      << "a credit balance must not refill by moving";
  HttpRequest r;
  r.body = chat_body("pricey", "revoked");
  r.headers = {{"Authorization", "Bearer " + revoked.key}};
  EXPECT_EQ(http_call(target.port(), r).status, 401);
  EXPECT_EQ(chat(target.port(), acme.key, "after the move").status, 200);
  const auto prompts = target.cli({"prompts", "show", "--tenant", "acme", "greet"});
  EXPECT_EQ(prompts.exit_code, 0) << prompts.err;
  EXPECT_NE(prompts.out.find("\"version\": 2"), std::string::npos) << prompts.out;
  // New rows get ids past the copied ones.
  const auto later = target.create_key("acme", "chat");
  EXPECT_GT(later.id, globex.id);
  const auto verify = target.cli({"audit", "verify"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
}

TEST_F(StorageCopyTest, ADestinationHoldingAnotherDeploymentIsRefusedUntouched) {
  Gateway source(options());
  source.create_tenant("acme");
  Gateway other(options(cluster_->storage_yaml("other_deployment")));
  other.create_tenant("initech");
  const auto refused = copy(source, other);
  EXPECT_EQ(refused.exit_code, 1) << refused.out;
  EXPECT_NE(refused.err.find("already holds tenant 'initech'"), std::string::npos) << refused.err;
  const auto tenants = other.cli({"tenants", "list"});
  EXPECT_EQ(tenants.out.find("acme"), std::string::npos) << "nothing was written: " << tenants.out;

  const auto missing = source.cli({"storage", "copy", "--from", source.config_path()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--to"), std::string::npos) << missing.err;
}

TEST_F(StorageCopyTest, SqliteToSqliteCopiesToo) {
  Gateway source(options());
  source.create_tenant("acme");
  const auto key = source.create_key("acme", "chat usage:read");
  source.start();
  ASSERT_EQ(chat(source.port(), key.key, "one").status, 200);
  ASSERT_TRUE(
      eventually([&] { return http_get(source.port(), "/v1/usage", key.key).json()["data"].size() == 1u; }));
  ASSERT_EQ(source.stop(), 0);
  const auto acme_id = UsageDb(source.db_path()).tenant_id("acme");
  ASSERT_TRUE(acme_id.has_value());
  store_response(source.db_path(), *acme_id, "resp_kept", unix_ms_now() + 3'600'000);
  Gateway target(options());
  const auto copied = copy(source, target);
  ASSERT_EQ(copied.exit_code, 0) << copied.out << copied.err;
  EXPECT_NE(copied.out.find("responses: 1"), std::string::npos) << copied.out;
  const std::string row =
      "SELECT tenant_id || ' ' || previous_id || ' ' || expires_unix_ms || ' ' || input_json || ' ' || "
      "response_json FROM responses WHERE id = 'resp_kept'";
  EXPECT_EQ(sqlite_text(target.db_path(), row), sqlite_text(source.db_path(), row))
      << "the stored response survives the copy";
  EXPECT_NE(sqlite_text(target.db_path(), row), "<none>");
  const auto again = copy(source, target);
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err << " (an equal response is put again)";
  target.start();
  EXPECT_EQ(http_get(target.port(), "/v1/usage", key.key).json()["data"].size(), 1u);
}

}  // namespace
}  // namespace it
