// What only SQLite says or keeps: its own words in the errors it raises (the
// status codes are checked for every plugin in storage_conformance), and names
// kept byte for byte, NUL included (PostgreSQL text cannot hold a NUL).
#include "test_support.h"

namespace sqlite_test {
namespace {

using ::testing::HasSubstr;

class SqliteErrorTextTest : public StorageTest {
 protected:
  Storage storage_{db_path()};
};

TEST_F(SqliteErrorTextTest, DuplicateTenantNameNamesTheUniqueConstraint) {
  create_tenant(storage_.get(), "acme");
  mgw::testing::TextRecorder error;
  EXPECT_EQ(h().on_tenant_create(storage_.get(), mgw::str("acme"), 2000, nullptr, &error.sink), MGW_CONFLICT);
  EXPECT_THAT(error.text, HasSubstr("UNIQUE"));
}

TEST_F(SqliteErrorTextTest, KeyOfAnUnknownTenantNamesTheForeignKey) {
  // Proves foreign_keys=ON: SQLite ignores REFERENCES without it.
  const NewKey key{9999, fake_hash(1)};
  auto record = key.record();
  mgw::testing::TextRecorder error;
  EXPECT_EQ(h().on_api_key_create(storage_.get(), &record, nullptr, &error.sink), MGW_INVALID_ARGUMENT);
  EXPECT_THAT(error.text, HasSubstr("FOREIGN KEY"));
}

TEST_F(SqliteErrorTextTest, NamesKeepAnEmbeddedNul) {
  const std::string tricky = std::string("o'brien\"); DROP TABLE tenants; --") + '\0' + "x";
  const int64_t id = create_tenant(storage_.get(), tricky);
  RowRecorder rows;
  ASSERT_EQ(h().on_tenant_find(storage_.get(), mgw::str(tricky), &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.tenants.size(), 1u);
  EXPECT_EQ(rows.tenants[0].id, id);
  EXPECT_EQ(rows.tenants[0].name, tricky);
}

}  // namespace
}  // namespace sqlite_test
