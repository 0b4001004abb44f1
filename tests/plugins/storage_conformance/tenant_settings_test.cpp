// Tenant settings: stored as given, "{}" until set, NOT_FOUND for no tenant.
// (Keeping them over a schema migration is each backend's own: storage_sqlite
// checks a version-1 file.)
#include "fixture.h"

namespace storage_test {
namespace {

class TenantSettingsTest : public StorageTest {
 protected:
  std::string settings_of(const std::string& name) {
    RowRecorder rows;
    EXPECT_EQ(h().on_tenant_find(storage(), mgw::str(name), &rows.sink, nullptr), MGW_OK);
    return rows.tenants.empty() ? std::string("<none>") : rows.tenants[0].settings_json;
  }
};

TEST_P(TenantSettingsTest, NewTenantHasEmptyObject) {
  create_tenant(storage(), "acme");
  EXPECT_EQ(settings_of("acme"), "{}");
}

TEST_P(TenantSettingsTest, SetReplacesTheDocument) {
  const int64_t id = create_tenant(storage(), "acme");
  ASSERT_EQ(h().on_tenant_settings_set(storage(), id, mgw::str(R"({"a":1})"), nullptr), MGW_OK);
  ASSERT_EQ(h().on_tenant_settings_set(storage(), id, mgw::str(R"({"b":2})"), nullptr), MGW_OK);
  EXPECT_EQ(settings_of("acme"), R"({"b":2})");
  RowRecorder rows;
  ASSERT_EQ(h().on_tenant_list(storage(), &rows.sink, nullptr), MGW_OK);
  EXPECT_EQ(rows.tenants.at(0).settings_json, R"({"b":2})");
}

TEST_P(TenantSettingsTest, TheDocumentIsKeptAsGivenByteForByte) {
  // Stored as text, not re-serialised: spacing and key order survive (a JSON
  // column type that normalises would change them).
  const int64_t id = create_tenant(storage(), "acme");
  const std::string doc = R"({ "z": 1,  "a": [1, 2.50, "x"], "a": "dup" })";
  ASSERT_EQ(h().on_tenant_settings_set(storage(), id, mgw::str(doc), nullptr), MGW_OK);
  EXPECT_EQ(settings_of("acme"), doc);
}

TEST_P(TenantSettingsTest, UnknownTenantIsNotFound) {
  EXPECT_EQ(h().on_tenant_settings_set(storage(), 42, mgw::str("{}"), nullptr), MGW_NOT_FOUND);
}

TEST_P(TenantSettingsTest, EmptyDocumentIsRefused) {
  const int64_t id = create_tenant(storage(), "acme");
  EXPECT_EQ(h().on_tenant_settings_set(storage(), id, mgw::str(""), nullptr), MGW_INVALID_ARGUMENT);
}

INSTANTIATE_TEST_SUITE_P(Backends, TenantSettingsTest, MGW_STORAGE_BACKENDS);

}  // namespace
}  // namespace storage_test
