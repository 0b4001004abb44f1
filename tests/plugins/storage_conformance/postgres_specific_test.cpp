// What only the postgres plugin has: its options, schema versions kept in
// schema_migrations, several gateways migrating one schema at once, and an
// unreachable server, whose errors never show the DSN's password.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <stdexcept>
#include <thread>

#include "postgres_fixture.h"

namespace storage_test {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr const char* kPassword = "s3cretpw";

class PostgresOpenTest : public PostgresTest {
 protected:
  std::string schema_table(const std::string& table) const {
    return quote_ident(db().schema()) + "." + table;
  }
  int64_t max_version() {
    return db().admin().integer("SELECT COALESCE(max(version), 0) FROM " + schema_table("schema_migrations"));
  }
  bool schema_exists() {
    return db().admin().integer("SELECT count(*) FROM pg_namespace WHERE nspname = " +
                                quote_literal(db().schema())) == 1;
  }
  // Expects INVALID_ARGUMENT for `json`; returns the error text.
  std::string refused(const std::string& json) {
    auto result = try_open(json);
    EXPECT_EQ(result.status, MGW_INVALID_ARGUMENT) << json;
    EXPECT_EQ(result.storage, nullptr) << json;
    if (result.storage != nullptr) h().on_storage_close(result.storage);
    return result.error;
  }
};

// A 127.0.0.1 port nothing listens on: bound by the kernel, then closed.
int closed_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    throw std::runtime_error("cannot find a free port");
  close(fd);
  return ntohs(addr.sin_port);
}

TEST_F(PostgresOpenTest, NewerSchemaIsRefusedNamingBothVersionsAndLeftAlone) {
  { auto first = open(); }
  const int64_t latest = max_version();
  ASSERT_GT(latest, 0);
  const int64_t future = latest + 5;
  db().admin().exec("INSERT INTO " + schema_table("schema_migrations") +
                    " (version, description, applied_unix_ms) VALUES (" + std::to_string(future) +
                    ", 'from a newer plugin', 0)");
  for (const std::string extra : {"", "\"migrate\": false"}) {
    auto result = try_open(db().config(extra));
    EXPECT_EQ(result.status, MGW_UNSUPPORTED) << extra;
    EXPECT_EQ(result.storage, nullptr);
    if (result.storage != nullptr) h().on_storage_close(result.storage);
    EXPECT_THAT(result.error, HasSubstr("schema version " + std::to_string(future)));
    EXPECT_THAT(result.error, HasSubstr("newer"));
    EXPECT_THAT(result.error, HasSubstr("(" + std::to_string(latest) + ")")) << "the plugin's own version";
  }
  EXPECT_EQ(max_version(), future) << "a refused database must be left alone";
  EXPECT_EQ(db().admin().integer("SELECT count(*) FROM " + schema_table("schema_migrations")), latest + 1);
}

TEST_F(PostgresOpenTest, ResponsesAreKeyedByTenantAndIdCollatedBytewise) {
  // Migration 6 (ABI 1.9): pages for storage copy are ordered bytewise
  // whatever the database's collation, on the primary key's index.
  { auto first = open(); }
  EXPECT_GE(max_version(), 6);
  EXPECT_EQ(db().admin().text("SELECT collation_name FROM information_schema.columns WHERE table_schema = " +
                              quote_literal(db().schema()) +
                              " AND table_name = 'responses' AND column_name = 'id'"),
            "C");
  EXPECT_EQ(db().admin().text("SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM pg_index i "
                              "CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k (attnum, n) "
                              "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum "
                              "WHERE i.indisprimary AND i.indrelid = '" +
                              db().schema() + ".responses'::regclass"),
            "tenant_id,id");
  // The purge's index: read from pg_index for this table alone. (pg_indexes
  // would build every schema's index definitions, and fail on one that a
  // test running beside this one drops meanwhile.)
  EXPECT_EQ(db().admin().integer(
                "SELECT count(*) FROM pg_index i "
                "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0] "
                "WHERE i.indrelid = '" +
                db().schema() + ".responses'::regclass AND i.indnatts = 1 AND a.attname = 'expires_unix_ms'"),
            1);
}

TEST_F(PostgresOpenTest, MigrateFalseOnAnEmptySchemaIsUnsupportedNamingModelgwMigrate) {
  auto result = try_open(db().config("\"migrate\": false"));
  EXPECT_EQ(result.status, MGW_UNSUPPORTED);
  EXPECT_EQ(result.storage, nullptr);
  if (result.storage != nullptr) h().on_storage_close(result.storage);
  EXPECT_THAT(result.error, HasSubstr("modelgw migrate"));
  EXPECT_FALSE(schema_exists()) << "migrate false must create nothing";
  // Once migrated (by a handle that may), migrate false opens it.
  { auto migrating = open(); }
  auto current = open("\"migrate\": false");
  int64_t id = 0;
  EXPECT_EQ(h().on_tenant_create(current->get(), mgw::str("acme"), 1, &id, nullptr), MGW_OK);
}

TEST_F(PostgresOpenTest, MigrateFalseOnAnOlderSchemaIsUnsupportedAndChangesNothing) {
  { auto first = open(); }
  const int64_t latest = max_version();
  if (latest < 2) {
    // With one step there is no older version than "none", checked above.
    db().admin().exec("DELETE FROM " + schema_table("schema_migrations"));
  } else {
    db().admin().exec("DELETE FROM " + schema_table("schema_migrations") +
                      " WHERE version = " + std::to_string(latest));
  }
  const int64_t before = max_version();
  auto result = try_open(db().config("\"migrate\": false"));
  EXPECT_EQ(result.status, MGW_UNSUPPORTED);
  if (result.storage != nullptr) h().on_storage_close(result.storage);
  EXPECT_THAT(result.error, HasSubstr("modelgw migrate"));
  EXPECT_EQ(max_version(), before);
}

TEST_F(PostgresOpenTest, HandlesOpeningOneFreshSchemaAtOnceAllSucceedAndEachStepRunsOnce) {
  constexpr int kHandles = 4;
  const std::string applied = "schema " + db().schema() + ": applied migration";
  const int logged_before = log_lines_with(applied);
  std::vector<OpenResult> results(kHandles);
  std::atomic<int> arrived{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kHandles; ++i) {
    threads.emplace_back([&, i] {
      ++arrived;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (arrived.load() < kHandles && std::chrono::steady_clock::now() < deadline)
        std::this_thread::yield();
      results[i] = try_open(db().config());
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kHandles; ++i) {
    EXPECT_EQ(results[i].status, MGW_OK) << "handle " << i << ": " << results[i].error;
    EXPECT_NE(results[i].storage, nullptr);
  }
  const int64_t latest = max_version();
  EXPECT_GT(latest, 0);
  EXPECT_EQ(db().admin().integer("SELECT count(*) FROM " + schema_table("schema_migrations")), latest)
      << "a step was recorded twice";
  EXPECT_EQ(log_lines_with(applied) - logged_before, latest) << "a step was applied twice";
  for (int i = 0; i < kHandles; ++i) {
    if (results[i].storage == nullptr) continue;
    int64_t id = 0;
    EXPECT_EQ(h().on_tenant_create(results[i].storage, mgw::str("t" + std::to_string(i)), 1, &id, nullptr),
              MGW_OK);
    h().on_storage_close(results[i].storage);
  }
}

TEST_F(PostgresOpenTest, UnreachableServerIsUnavailableAndNeverShowsThePassword) {
  const int port = closed_port();
  const std::string uri =
      "postgresql://modelgw:" + std::string(kPassword) + "@127.0.0.1:" + std::to_string(port) + "/modelgw";
  const std::string keywords =
      "host=127.0.0.1 port=" + std::to_string(port) + " user=modelgw dbname=modelgw password=" + kPassword;
  for (const auto& dsn : {uri, keywords}) {
    const size_t logs_before = host().logs().size();
    const auto start = std::chrono::steady_clock::now();
    auto result = try_open("{\"dsn\": " + nlohmann::json(dsn).dump() + ", \"schema\": \"" + db().schema() +
                           "\", \"pool_size\": 2, \"connect_timeout_ms\": 2000}");
    EXPECT_LT(ms_since(start), 15'000) << "connect_timeout_ms must bound the attempt";
    EXPECT_EQ(result.status, MGW_UNAVAILABLE) << result.error;
    EXPECT_EQ(result.storage, nullptr);
    if (result.storage != nullptr) h().on_storage_close(result.storage);
    EXPECT_THAT(result.error, Not(IsEmpty()));
    EXPECT_THAT(result.error, Not(HasSubstr(kPassword)));
    const auto logs = host().logs();
    for (size_t i = logs_before; i < logs.size(); ++i) EXPECT_THAT(logs[i].second, Not(HasSubstr(kPassword)));
  }
}

TEST_F(PostgresOpenTest, AnUnparsableDsnIsInvalidArgumentAndNeverShowsThePassword) {
  const std::string dsn = std::string("host=127.0.0.1 password=") + kPassword + " no_such_keyword=1";
  const auto error = refused("{\"dsn\": " + nlohmann::json(dsn).dump() + "}");
  EXPECT_THAT(error, HasSubstr("storage.options.dsn"));
  EXPECT_THAT(error, Not(HasSubstr(kPassword)));
}

TEST_F(PostgresOpenTest, UnknownOptionIsInvalidArgumentNamingIt) {
  EXPECT_EQ(refused(db().config("\"colour\": \"blue\"")), "storage.options.colour: unknown option");
  EXPECT_FALSE(schema_exists()) << "a refused config must not create the schema";
}

TEST_F(PostgresOpenTest, BadOptionsAreInvalidArgumentNamingTheOption) {
  EXPECT_THAT(refused("{}"), HasSubstr("storage.options.dsn"));
  EXPECT_THAT(refused(R"({"dsn": 5})"), HasSubstr("storage.options.dsn"));
  EXPECT_THAT(refused(db().config("\"migrate\": \"yes\"")), HasSubstr("storage.options.migrate"));
  EXPECT_THAT(refused("{\"dsn\": \"" + db().dsn() + "\", \"schema\": \"no-dashes\"}"),
              HasSubstr("storage.options.schema"));
  EXPECT_THAT(refused("{\"dsn\": \"" + db().dsn() + "\", \"pool_size\": 0}"),
              HasSubstr("storage.options.pool_size"));
  EXPECT_THAT(refused(R"(["dsn"])"), HasSubstr("storage.options"));
  EXPECT_THAT(refused("{\"dsn\": "), HasSubstr("storage.options"));
  EXPECT_FALSE(schema_exists());
}

TEST_F(PostgresOpenTest, SchemasKeepTenantsApart) {
  // Two schemas in one database are two stores: what one holds, the other does not.
  PostgresDatabase other(current_test_name() + "_other");
  auto mine = open();
  Storage theirs(h(), other.config());
  int64_t id = 0;
  ASSERT_EQ(h().on_tenant_create(mine->get(), mgw::str("acme"), 1, &id, nullptr), MGW_OK);
  RowRecorder rows;
  EXPECT_EQ(h().on_tenant_find(theirs.get(), mgw::str("acme"), &rows.sink, nullptr), MGW_NOT_FOUND);
  EXPECT_EQ(h().on_tenant_create(theirs.get(), mgw::str("acme"), 1, &id, nullptr), MGW_OK);
}

}  // namespace
}  // namespace storage_test
