// Tenant settings: stored as given, "{}" until set, NOT_FOUND for no tenant,
// and kept when a version-1 database is migrated.
#include "test_support.h"

namespace sqlite_test {
namespace {

class TenantSettingsTest : public StorageTest {};

std::string settings_of(const StorageTest& /*unused*/, mgw_storage* storage, const std::string& name) {
  RowRecorder rows;
  EXPECT_EQ(hooks().on_tenant_find(storage, mgw::str(name), &rows.sink, nullptr), MGW_OK);
  return rows.tenants.empty() ? std::string("<none>") : rows.tenants[0].settings_json;
}

TEST_F(TenantSettingsTest, NewTenantHasEmptyObject) {
  Storage storage(db_path());
  create_tenant(storage.get(), "acme");
  EXPECT_EQ(settings_of(*this, storage.get(), "acme"), "{}");
}

TEST_F(TenantSettingsTest, SetReplacesTheDocument) {
  Storage storage(db_path());
  const int64_t id = create_tenant(storage.get(), "acme");
  ASSERT_EQ(h().on_tenant_settings_set(storage.get(), id, mgw::str(R"({"a":1})"), nullptr), MGW_OK);
  ASSERT_EQ(h().on_tenant_settings_set(storage.get(), id, mgw::str(R"({"b":2})"), nullptr), MGW_OK);
  EXPECT_EQ(settings_of(*this, storage.get(), "acme"), R"({"b":2})");
  RowRecorder rows;
  ASSERT_EQ(h().on_tenant_list(storage.get(), &rows.sink, nullptr), MGW_OK);
  EXPECT_EQ(rows.tenants.at(0).settings_json, R"({"b":2})");
}

TEST_F(TenantSettingsTest, UnknownTenantIsNotFound) {
  Storage storage(db_path());
  EXPECT_EQ(h().on_tenant_settings_set(storage.get(), 42, mgw::str("{}"), nullptr), MGW_NOT_FOUND);
}

TEST_F(TenantSettingsTest, EmptyDocumentIsRefused) {
  Storage storage(db_path());
  const int64_t id = create_tenant(storage.get(), "acme");
  EXPECT_EQ(h().on_tenant_settings_set(storage.get(), id, mgw::str(""), nullptr), MGW_INVALID_ARGUMENT);
}

TEST_F(TenantSettingsTest, VersionOneDatabaseMigratesWithItsRows) {
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
  EXPECT_EQ(settings_of(*this, storage.get(), "old"), "{}");
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
}

}  // namespace
}  // namespace sqlite_test
