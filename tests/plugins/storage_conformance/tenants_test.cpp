// Tenants: create, find, list, and the CONFLICT on a taken name.
#include "fixture.h"

namespace storage_test {
namespace {

using ::testing::AnyOf;

class TenantsTest : public StorageTest {};

TEST_P(TenantsTest, CreateThenFindReturnsTheRow) {
  const int64_t id = create_tenant(storage(), "acme", 1700000000123);
  EXPECT_GT(id, 0);
  RowRecorder rows;
  mgw::testing::TextRecorder error;
  ASSERT_EQ(h().on_tenant_find(storage(), mgw::str("acme"), &rows.sink, &error.sink), MGW_OK) << error.text;
  ASSERT_EQ(rows.tenants.size(), 1u);
  EXPECT_EQ(rows.tenants[0].id, id);
  EXPECT_EQ(rows.tenants[0].name, "acme");
  EXPECT_EQ(rows.tenants[0].created_unix_ms, 1700000000123);
}

TEST_P(TenantsTest, FindUnknownIsNotFound) {
  create_tenant(storage(), "acme");
  RowRecorder rows;
  EXPECT_EQ(h().on_tenant_find(storage(), mgw::str("Acme"), &rows.sink, nullptr), MGW_NOT_FOUND);
  EXPECT_TRUE(rows.tenants.empty());
}

TEST_P(TenantsTest, ListReturnsAllInCreationOrder) {
  const int64_t a = create_tenant(storage(), "zeta", 10);
  const int64_t b = create_tenant(storage(), "alpha", 20);
  const int64_t c = create_tenant(storage(), "mid", 30);
  RowRecorder rows;
  ASSERT_EQ(h().on_tenant_list(storage(), &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.tenants.size(), 3u);
  EXPECT_EQ(rows.tenants[0].id, a);
  EXPECT_EQ(rows.tenants[0].name, "zeta");
  EXPECT_EQ(rows.tenants[1].id, b);
  EXPECT_EQ(rows.tenants[1].created_unix_ms, 20);
  EXPECT_EQ(rows.tenants[2].id, c);
}

TEST_P(TenantsTest, DuplicateNameIsConflict) {
  // The wording of the error is the database's (sqlite: "UNIQUE", see
  // storage_sqlite's error_text_test.cpp); the status and the untouched row are common.
  const int64_t first = create_tenant(storage(), "acme");
  int64_t id = -7;
  mgw::testing::TextRecorder error;
  EXPECT_EQ(h().on_tenant_create(storage(), mgw::str("acme"), 2000, &id, &error.sink), MGW_CONFLICT);
  EXPECT_EQ(id, -7) << "out_id is written only on success";
  RowRecorder rows;
  ASSERT_EQ(h().on_tenant_list(storage(), &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.tenants.size(), 1u);
  EXPECT_EQ(rows.tenants[0].id, first);
  EXPECT_EQ(rows.tenants[0].created_unix_ms, 1000);
}

TEST_P(TenantsTest, EmptyNameIsRefused) {
  mgw::testing::TextRecorder error;
  EXPECT_EQ(h().on_tenant_create(storage(), mgw_str{nullptr, 0}, 1000, nullptr, &error.sink),
            MGW_INVALID_ARGUMENT);
  EXPECT_EQ(error.text, "tenant create: name: must not be empty");
}

TEST_P(TenantsTest, NamesAreBoundNotSpliced) {
  // Quotes and SQL in a name are just bytes.
  const std::string tricky = "o'brien\"); DROP TABLE tenants; --\\x";
  const int64_t id = create_tenant(storage(), tricky);
  RowRecorder rows;
  ASSERT_EQ(h().on_tenant_find(storage(), mgw::str(tricky), &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.tenants.size(), 1u);
  EXPECT_EQ(rows.tenants[0].id, id);
  EXPECT_EQ(rows.tenants[0].name, tricky);
}

TEST_P(TenantsTest, ANameWithANulByteIsKeptWholeOrRefusedNeverCut) {
  // Some databases cannot store NUL in text (sqlite can: storage_sqlite checks
  // the bytes come back). What no backend may do is store a shorter name.
  const std::string with_nul = std::string("ab") + '\0' + "cd";
  int64_t id = 0;
  mgw::testing::TextRecorder error;
  const mgw_status st = h().on_tenant_create(storage(), mgw::str(with_nul), 1000, &id, &error.sink);
  EXPECT_THAT(st, AnyOf(MGW_OK, MGW_INVALID_ARGUMENT)) << error.text;
  RowRecorder rows;
  EXPECT_EQ(h().on_tenant_find(storage(), mgw::str("ab"), &rows.sink, nullptr), MGW_NOT_FOUND)
      << "the name was cut at the NUL byte";
  if (st == MGW_OK) {
    ASSERT_EQ(h().on_tenant_find(storage(), mgw::str(with_nul), &rows.sink, nullptr), MGW_OK);
    ASSERT_EQ(rows.tenants.size(), 1u);
    EXPECT_EQ(rows.tenants[0].name, with_nul);
  } else {
    ASSERT_EQ(h().on_tenant_list(storage(), &rows.sink, nullptr), MGW_OK);
    EXPECT_TRUE(rows.tenants.empty());
  }
}

TEST_P(TenantsTest, NullHandleIsInvalidArgument) {
  mgw::testing::TextRecorder error;
  EXPECT_EQ(h().on_tenant_list(nullptr, nullptr, &error.sink), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(error.text, "tenant list: storage handle is NULL");
}

INSTANTIATE_TEST_SUITE_P(Backends, TenantsTest, MGW_STORAGE_BACKENDS);

}  // namespace
}  // namespace storage_test
