// Tenants: create, find, list, and the CONFLICT on a taken name.
#include "test_support.h"

namespace sqlite_test {
namespace {

using ::testing::HasSubstr;

class TenantsTest : public StorageTest {
 protected:
  Storage storage_{db_path()};
};

TEST_F(TenantsTest, CreateThenFindReturnsTheRow) {
  const int64_t id = create_tenant(storage_.get(), "acme", 1700000000123);
  EXPECT_GT(id, 0);
  RowRecorder rows;
  mgw::testing::TextRecorder error;
  ASSERT_EQ(h().on_tenant_find(storage_.get(), mgw::str("acme"), &rows.sink, &error.sink), MGW_OK)
      << error.text;
  ASSERT_EQ(rows.tenants.size(), 1u);
  EXPECT_EQ(rows.tenants[0].id, id);
  EXPECT_EQ(rows.tenants[0].name, "acme");
  EXPECT_EQ(rows.tenants[0].created_unix_ms, 1700000000123);
}

TEST_F(TenantsTest, FindUnknownIsNotFound) {
  create_tenant(storage_.get(), "acme");
  RowRecorder rows;
  EXPECT_EQ(h().on_tenant_find(storage_.get(), mgw::str("Acme"), &rows.sink, nullptr), MGW_NOT_FOUND);
  EXPECT_TRUE(rows.tenants.empty());
}

TEST_F(TenantsTest, ListReturnsAllInCreationOrder) {
  const int64_t a = create_tenant(storage_.get(), "zeta", 10);
  const int64_t b = create_tenant(storage_.get(), "alpha", 20);
  const int64_t c = create_tenant(storage_.get(), "mid", 30);
  RowRecorder rows;
  ASSERT_EQ(h().on_tenant_list(storage_.get(), &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.tenants.size(), 3u);
  EXPECT_EQ(rows.tenants[0].id, a);
  EXPECT_EQ(rows.tenants[0].name, "zeta");
  EXPECT_EQ(rows.tenants[1].id, b);
  EXPECT_EQ(rows.tenants[1].created_unix_ms, 20);
  EXPECT_EQ(rows.tenants[2].id, c);
}

TEST_F(TenantsTest, DuplicateNameIsConflict) {
  const int64_t first = create_tenant(storage_.get(), "acme");
  int64_t id = -7;
  mgw::testing::TextRecorder error;
  EXPECT_EQ(h().on_tenant_create(storage_.get(), mgw::str("acme"), 2000, &id, &error.sink), MGW_CONFLICT);
  EXPECT_EQ(id, -7) << "out_id is written only on success";
  EXPECT_THAT(error.text, HasSubstr("UNIQUE"));
  RowRecorder rows;
  ASSERT_EQ(h().on_tenant_list(storage_.get(), &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.tenants.size(), 1u);
  EXPECT_EQ(rows.tenants[0].id, first);
  EXPECT_EQ(rows.tenants[0].created_unix_ms, 1000);
}

TEST_F(TenantsTest, EmptyNameIsRefused) {
  mgw::testing::TextRecorder error;
  EXPECT_EQ(h().on_tenant_create(storage_.get(), mgw_str{nullptr, 0}, 1000, nullptr, &error.sink),
            MGW_INVALID_ARGUMENT);
  EXPECT_EQ(error.text, "tenant create: name: must not be empty");
}

TEST_F(TenantsTest, NamesAreBoundNotSpliced) {
  // Quotes and SQL in a name are just bytes; so is an embedded NUL.
  const std::string tricky = std::string("o'brien\"); DROP TABLE tenants; --") + '\0' + "x";
  const int64_t id = create_tenant(storage_.get(), tricky);
  RowRecorder rows;
  ASSERT_EQ(h().on_tenant_find(storage_.get(), mgw::str(tricky), &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.tenants.size(), 1u);
  EXPECT_EQ(rows.tenants[0].id, id);
  EXPECT_EQ(rows.tenants[0].name, tricky);
}

TEST_F(TenantsTest, NullHandleIsInvalidArgument) {
  mgw::testing::TextRecorder error;
  EXPECT_EQ(h().on_tenant_list(nullptr, nullptr, &error.sink), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(error.text, "tenant list: storage handle is NULL");
}

}  // namespace
}  // namespace sqlite_test
