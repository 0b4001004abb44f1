// Schema versions: fresh files, reopening, newer files, failed steps, WAL, and
// a version-1 file (tenant settings, prompt and PII columns) migrated with its rows.
#include "test_support.h"

namespace sqlite_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;

constexpr int64_t kCurrentVersion = 13;

class MigrationsTest : public StorageTest {};

// The settings document of the tenant `name`, read through the hooks.
std::string settings_of(mgw_storage* storage, const std::string& name) {
  RowRecorder rows;
  EXPECT_EQ(hooks().on_tenant_find(storage, mgw::str(name), &rows.sink, nullptr), MGW_OK);
  return rows.tenants.empty() ? std::string("<none>") : rows.tenants[0].settings_json;
}

TEST_F(MigrationsTest, FreshFileGetsTheCurrentSchema) {
  { Storage storage(db_path()); }
  RawDb raw(db_path());
  EXPECT_EQ(raw.integer("PRAGMA user_version"), kCurrentVersion);
  EXPECT_THAT(raw.column("SELECT name FROM pragma_table_info('tenants') ORDER BY cid"),
              ElementsAre("id", "name", "created_unix_ms", "settings_json"));
  EXPECT_THAT(raw.column("SELECT name FROM pragma_table_info('api_keys') ORDER BY cid"),
              ElementsAre("id", "tenant_id", "key_hash", "display_prefix", "scopes", "created_unix_ms",
                          "revoked_unix_ms"));
  EXPECT_THAT(raw.column("SELECT name FROM pragma_table_info('usage_records') ORDER BY cid"),
              ElementsAre("id", "request_id", "tenant_id", "key_id", "alias", "provider", "upstream_model",
                          "prompt_tokens", "completion_tokens", "total_tokens", "http_status", "error_code",
                          "latency_us", "ttft_us", "streamed", "created_unix_ms", "prompt_name",
                          "prompt_version", "pii_action", "pii_findings", "feature", "cached_prompt_tokens",
                          "cost_micros", "price_input_micros", "price_output_micros", "price_cached_micros",
                          "reason", "trace_id", "operation"));
  // Version 4: budgets, ledger windows, leases and the hourly usage rollups.
  EXPECT_THAT(raw.column("SELECT name FROM pragma_table_info('budgets') ORDER BY cid"),
              ElementsAre("id", "tenant_id", "scope", "subject", "name", "period", "limit_micros",
                          "created_unix_ms"));
  EXPECT_EQ(raw.text("SELECT group_concat(name) FROM pragma_table_info('ledger_windows') WHERE pk > 0"),
            "account,window_start");
  EXPECT_EQ(raw.text("SELECT group_concat(name) FROM pragma_index_info('usage_records_tenant_id')"),
            "tenant_id,id");
  // Version 10: the operation is part of the rollups' key.
  EXPECT_EQ(
      raw.text("SELECT group_concat(name) FROM (SELECT name FROM pragma_table_info('usage_rollup_hour') "
               "WHERE pk > 0 ORDER BY pk)"),
      "tenant_id,hour_start,alias,feature,key_id,http_status,streamed,operation");
  // Version 13: postings per batch and filter column, and each rollup row's
  // id range; the records have no index per filter column nor on time
  // (usage_query.cpp reads the ranges).
  EXPECT_EQ(raw.text("SELECT group_concat(name) FROM (SELECT name FROM pragma_table_info('usage_postings') "
                     "WHERE pk > 0 ORDER BY pk)"),
            "tenant_id,kind,value,max_id");
  EXPECT_EQ(
      raw.text("SELECT group_concat(name) FROM (SELECT name FROM pragma_table_info('usage_rollup_hour') "
               "WHERE name LIKE '%_id' AND pk = 0 ORDER BY cid)"),
      "min_id,max_id");
  EXPECT_EQ(raw.text("SELECT group_concat(name) FROM (SELECT name FROM pragma_index_list('usage_records') "
                     "ORDER BY name)"),
            "usage_records_request_id,usage_records_tenant_id");
  EXPECT_THAT(raw.column("SELECT name FROM pragma_table_info('prompt_versions') ORDER BY cid"),
              ElementsAre("tenant_id", "name", "version", "template_json", "model", "parameters_json",
                          "created_unix_ms"));
  // One active version per prompt: the primary key of prompt_active says so.
  EXPECT_EQ(raw.text("SELECT group_concat(name) FROM pragma_table_info('prompt_active') WHERE pk > 0"),
            "tenant_id,name");
  // request_id is indexed.
  EXPECT_EQ(raw.text("SELECT group_concat(name) FROM pragma_index_info('usage_records_request_id')"),
            "request_id");
  // Version 11 (ABI 1.9): stored responses, one per (tenant_id, id), expiry indexed for the purge.
  EXPECT_THAT(raw.column("SELECT name FROM pragma_table_info('responses') ORDER BY cid"),
              ElementsAre("tenant_id", "id", "previous_id", "created_unix_ms", "expires_unix_ms",
                          "input_json", "response_json"));
  EXPECT_EQ(raw.text("SELECT group_concat(name) FROM pragma_table_info('responses') WHERE pk > 0"),
            "tenant_id,id");
  EXPECT_EQ(raw.text("SELECT group_concat(name) FROM pragma_index_info('responses_expiry')"),
            "expires_unix_ms");
  // The key hash is unique, and api_keys.tenant_id references tenants.
  EXPECT_EQ(raw.text("SELECT \"table\" || '.' || \"to\" FROM pragma_foreign_key_list('api_keys')"),
            "tenants.id");
  EXPECT_EQ(
      raw.integer("SELECT count(*) FROM pragma_index_list('api_keys') WHERE \"unique\" = 1 AND origin = 'u'"),
      1);
}

TEST_F(MigrationsTest, FreshFileLogsTheMigrationOnce) {
  // The host is shared by every test in this program, so count new lines only.
  auto count = [] {
    int n = 0;
    for (const auto& [level, line] : host().logs())
      n += level == MGW_LOG_INFO && line.find("applied schema migration 1 ") != std::string::npos;
    return n;
  };
  const int before = count();
  { Storage storage(db_path()); }
  EXPECT_EQ(count(), before + 1);
  { Storage storage(db_path()); }
  EXPECT_EQ(count(), before + 1) << "reopening must not migrate again";
}

TEST_F(MigrationsTest, ReopeningIsANoOp) {
  int64_t id = 0;
  {
    Storage storage(db_path());
    id = create_tenant(storage.get(), "acme");
  }
  std::string schema_before;
  {
    RawDb raw(db_path());
    schema_before = raw.text("SELECT group_concat(sql, ';') FROM sqlite_master");
  }
  // If a step ran again, its CREATE TABLE would fail and so would the open.
  Storage storage(db_path());
  RawDb raw(db_path());
  EXPECT_EQ(raw.integer("PRAGMA user_version"), kCurrentVersion);
  EXPECT_EQ(raw.text("SELECT group_concat(sql, ';') FROM sqlite_master"), schema_before);
  RowRecorder rows;
  EXPECT_EQ(h().on_tenant_find(storage.get(), mgw::str("acme"), &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.tenants.size(), 1u);
  EXPECT_EQ(rows.tenants[0].id, id);
}

TEST_F(MigrationsTest, NewerDatabaseIsRefusedNamingBothVersions) {
  {
    RawDb raw(db_path());
    raw.exec("PRAGMA user_version = 99");
  }
  auto result = open_storage(config_for(db_path()));
  EXPECT_EQ(result.status, MGW_UNSUPPORTED);
  EXPECT_EQ(result.storage, nullptr);
  EXPECT_THAT(result.error, HasSubstr("schema version 99"));
  EXPECT_THAT(result.error, HasSubstr("supports (" + std::to_string(kCurrentVersion) + ")"));
  RawDb raw(db_path());
  EXPECT_EQ(raw.integer("PRAGMA user_version"), 99) << "a refused database must be left alone";
}

TEST_F(MigrationsTest, FailedStepRollsBackCompletely) {
  {
    // A table in the way of migration 1's last CREATE TABLE.
    RawDb raw(db_path());
    raw.exec("CREATE TABLE usage_records (x INTEGER)");
  }
  auto result = open_storage(config_for(db_path()));
  EXPECT_EQ(result.status, MGW_INTERNAL);
  EXPECT_EQ(result.storage, nullptr);
  EXPECT_THAT(result.error, HasSubstr("usage_records already exists"));
  RawDb raw(db_path());
  EXPECT_EQ(raw.integer("PRAGMA user_version"), 0);
  EXPECT_EQ(raw.integer("SELECT count(*) FROM sqlite_master WHERE name IN ('tenants', 'api_keys')"), 0)
      << "tables created before the failure must be rolled back";
}

TEST_F(MigrationsTest, FileIsInWalMode) {
  Storage storage(db_path());
  RawDb raw(db_path());
  EXPECT_EQ(raw.text("PRAGMA journal_mode"), "wal");
  EXPECT_TRUE(fs::exists(db_path().string() + "-wal"));
}

TEST_F(MigrationsTest, VersionOneDatabaseMigratesWithItsRowsAndSettings) {
  {
    // The tables of schema version 1 that migration 2 alters, with a row each.
    RawDb raw(db_path());
    raw.exec(R"sql(
      CREATE TABLE tenants (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, created_unix_ms INTEGER NOT NULL);
      CREATE TABLE api_keys (id INTEGER PRIMARY KEY, tenant_id INTEGER NOT NULL REFERENCES tenants(id),
        key_hash TEXT UNIQUE NOT NULL, display_prefix TEXT NOT NULL, scopes TEXT NOT NULL,
        created_unix_ms INTEGER NOT NULL, revoked_unix_ms INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE usage_records (id INTEGER PRIMARY KEY, request_id TEXT NOT NULL, tenant_id INTEGER NOT NULL,
        key_id INTEGER NOT NULL, alias TEXT NOT NULL, provider TEXT NOT NULL, upstream_model TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, total_tokens INTEGER NOT NULL,
        http_status INTEGER NOT NULL, error_code TEXT NOT NULL, latency_us INTEGER NOT NULL,
        ttft_us INTEGER NOT NULL, streamed INTEGER NOT NULL, created_unix_ms INTEGER NOT NULL);
      INSERT INTO tenants VALUES (1, 'old', 5);
      INSERT INTO usage_records VALUES (1, 'req_old', 1, 0, 'a', 'p', 'm', 1, 2, 3, 200, '', 10, -1, 0, 7);
      PRAGMA user_version = 1;
    )sql");
  }
  Storage storage(db_path());
  EXPECT_EQ(settings_of(storage.get(), "old"), "{}");
  RowRecorder rows;
  mgw_usage_query q{};
  q.struct_size = sizeof q;
  ASSERT_EQ(h().on_usage_query(storage.get(), &q, &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.usage.size(), 1u);
  EXPECT_EQ(rows.usage[0].request_id, "req_old");
  EXPECT_EQ(rows.usage[0].prompt_name, "");
  EXPECT_EQ(rows.usage[0].prompt_version, 0);
  EXPECT_EQ(rows.usage[0].pii_action, "") << "migration 3 ran too, over the old row";
  EXPECT_EQ(rows.usage[0].pii_findings, "");
  EXPECT_EQ(rows.usage[0].trace_id, "") << "migration 7 ran too";
  EXPECT_EQ(rows.usage[0].operation, "chat.completions") << "migration 10 ran too";
  // Its hourly rollup (migration 4), rebuilt with an operation (migration
  // 10), answers totals filtered by operation.
  auto requests = [&](const char* operation) {
    mgw_usage_filter f{};
    f.struct_size = sizeof f;
    f.tenant_id = 1;
    f.stream = -1;
    f.operation = mgw::str(operation);
    RowRecorder sums;
    EXPECT_EQ(h().on_usage_totals(storage.get(), &f, &sums.sink, nullptr), MGW_OK);
    return sums.groups.empty() ? int64_t{-1} : sums.groups[0].requests;
  };
  EXPECT_EQ(requests("chat.completions"), 1);
  EXPECT_EQ(requests("responses"), 0);
  EXPECT_EQ(requests(""), 1);
  // It got postings and its rollup its id range (migration 13): a page
  // filtered by its model, feature or key finds it, and one by another model
  // does not; totals over a partial hour count it.
  auto page = [&](const char* model) {
    mgw_usage_filter f{};
    f.struct_size = sizeof f;
    f.tenant_id = 1;
    f.stream = -1;
    f.limit = 10;
    f.model = mgw::str(model);
    RowRecorder found;
    EXPECT_EQ(h().on_usage_page(storage.get(), &f, &found.sink, nullptr), MGW_OK);
    return found.usage.size();
  };
  EXPECT_EQ(page("a"), 1u);
  EXPECT_EQ(page("b"), 0u);
  mgw_usage_filter no_feature{};
  no_feature.struct_size = sizeof no_feature;
  no_feature.tenant_id = 1;
  no_feature.stream = -1;
  no_feature.limit = 10;
  no_feature.has_feature = 1;  // records without a feature
  RowRecorder without;
  ASSERT_EQ(h().on_usage_page(storage.get(), &no_feature, &without.sink, nullptr), MGW_OK);
  EXPECT_EQ(without.usage.size(), 1u);
  mgw_usage_filter edge{};
  edge.struct_size = sizeof edge;
  edge.tenant_id = 1;
  edge.stream = -1;
  edge.from_unix_ms = 5;  // the row's created_unix_ms is 7: inside the range's first, partial hour
  edge.to_unix_ms = 3'600'000 * 3 + 1;
  RowRecorder sums;
  ASSERT_EQ(h().on_usage_totals(storage.get(), &edge, &sums.sink, nullptr), MGW_OK);
  ASSERT_EQ(sums.groups.size(), 1u);
  EXPECT_EQ(sums.groups[0].requests, 1);
}

}  // namespace
}  // namespace sqlite_test
