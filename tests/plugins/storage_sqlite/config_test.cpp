// storage.options: what is refused and how, and what a good config does.
#include "test_support.h"

namespace sqlite_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class ConfigTest : public StorageTest {
 protected:
  // Opens with `json`; expects INVALID_ARGUMENT and returns the error text.
  std::string refused(const std::string& json) {
    auto result = open_storage(json);
    EXPECT_EQ(result.status, MGW_INVALID_ARGUMENT) << json;
    EXPECT_EQ(result.storage, nullptr) << json;
    if (result.storage != nullptr) h().on_storage_close(result.storage);
    return result.error;
  }
};

TEST_F(ConfigTest, PathIsRequired) {
  EXPECT_EQ(refused("{}"), "storage.options.path: required string");
  EXPECT_EQ(refused(R"({"busy_timeout_ms": 10})"), "storage.options.path: required string");
}

TEST_F(ConfigTest, PathMustBeAString) {
  EXPECT_EQ(refused(R"({"path": 5})"), "storage.options.path: required string");
  EXPECT_EQ(refused(R"({"path": null})"), "storage.options.path: required string");
  EXPECT_EQ(refused(R"({"path": ["a"]})"), "storage.options.path: required string");
}

TEST_F(ConfigTest, PathMustNotBeEmpty) {
  EXPECT_EQ(refused(R"({"path": ""})"), "storage.options.path: must not be empty");
}

TEST_F(ConfigTest, BusyTimeoutMustBeANonNegativeInt) {
  const std::string expected = "storage.options.busy_timeout_ms: must be an integer from 0 to 2147483647";
  EXPECT_EQ(refused(config_for(db_path(), R"("busy_timeout_ms": "5000")")), expected);
  EXPECT_EQ(refused(config_for(db_path(), R"("busy_timeout_ms": -1)")), expected);
  EXPECT_EQ(refused(config_for(db_path(), R"("busy_timeout_ms": 1.5)")), expected);
  EXPECT_EQ(refused(config_for(db_path(), R"("busy_timeout_ms": 2147483648)")), expected);
  EXPECT_FALSE(fs::exists(db_path())) << "a refused config must not create the database";
}

TEST_F(ConfigTest, UnknownOptionIsNamed) {
  EXPECT_EQ(refused(config_for(db_path(), R"("busy_timeout": 100)")),
            "storage.options.busy_timeout: unknown option");
}

TEST_F(ConfigTest, MustBeAJsonObject) {
  EXPECT_EQ(refused("{\"path\": "), "storage.options: not valid JSON");
  EXPECT_EQ(refused(R"(["path"])"), "storage.options: must be a JSON object");
  EXPECT_EQ(refused(""), "storage.options: not valid JSON");
}

TEST_F(ConfigTest, CreatesMissingParentFolders) {
  auto path = dir_.path() / "a" / "b" / "c" / "gateway.db";
  ASSERT_FALSE(fs::exists(path.parent_path()));
  { Storage storage(path, R"("busy_timeout_ms": 0)"); }
  EXPECT_TRUE(fs::is_regular_file(path));
}

TEST_F(ConfigTest, UnopenablePathFailsNamingThePath) {
  // A folder where the file should be: SQLite cannot open it.
  fs::create_directories(db_path());
  auto result = open_storage(config_for(db_path()));
  EXPECT_EQ(result.status, MGW_INTERNAL);
  EXPECT_EQ(result.storage, nullptr);
  EXPECT_THAT(result.error, StartsWith(db_path().string() + ": "));
}

TEST_F(ConfigTest, NotADatabaseFailsNamingThePath) {
  {
    std::ofstream(db_path()) << "this is not an SQLite database, just some text that is long enough to check";
  }
  auto result = open_storage(config_for(db_path()));
  EXPECT_EQ(result.status, MGW_INTERNAL);
  EXPECT_THAT(result.error, StartsWith(db_path().string() + ": "));
  EXPECT_THAT(result.error, HasSubstr("not a database"));
}

TEST_F(ConfigTest, MigrateFalseRefusesAnOlderSchemaAndMigrateTrueBringsItUp) {
  EXPECT_EQ(refused(config_for(db_path(), R"("migrate": "yes")")),
            "storage.options.migrate: must be true or false");
  auto result = open_storage(config_for(db_path(), R"("migrate": false)"));
  EXPECT_EQ(result.status, MGW_UNSUPPORTED);
  EXPECT_EQ(result.storage, nullptr);
  EXPECT_THAT(result.error, HasSubstr("schema version 0 is older"));
  EXPECT_THAT(result.error, HasSubstr("modelgw migrate"));
  { Storage migrated(db_path(), R"("migrate": true)"); }
  // Once current, migrate: false opens it.
  { Storage current(db_path(), R"("migrate": false)"); }
}

}  // namespace
}  // namespace sqlite_test
