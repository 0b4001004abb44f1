#include "backend.h"

#define BOOST_DLL_USE_STD_FS
#include <sqlite3.h>
#include <unistd.h>
#include <boost/dll/shared_library.hpp>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "pg_admin.h"
#include "postgres_database.h"

namespace storage_test {

namespace fs = std::filesystem;

struct Backend::Loaded {
  boost::dll::shared_library library;
  mgw_plugin_entry_fn entry = nullptr;
  const mgw_storage_hooks* hooks = nullptr;
};

Backend::Loaded& Backend::load() {
  // Loaded on the main thread (a fixture's SetUp) before any test starts threads.
  if (loaded_) return *loaded_;
  const fs::path path = plugin_path();
  if (path.empty())
    throw std::runtime_error("the " + name() + " storage plugin was not built (no CMake target for it)");
  auto loaded = std::make_shared<Loaded>();
  try {
    loaded->library.load(path);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot load " + path.string() + ": " + e.what());
  }
  loaded->entry = &loaded->library.get<const mgw_plugin_descriptor*(const mgw_host_api*)>(MGW_ENTRY_SYMBOL);
  const mgw_plugin_descriptor* d = loaded->entry(host().api());
  if (d == nullptr || d->kind != MGW_KIND_STORAGE || d->hooks == nullptr)
    throw std::runtime_error(path.string() + ": not a storage plugin of this ABI");
  loaded->hooks = static_cast<const mgw_storage_hooks*>(d->hooks);
  loaded_ = std::move(loaded);
  return *loaded_;
}

const mgw_plugin_descriptor* Backend::descriptor(const mgw_host_api* host_api) {
  return load().entry(host_api);
}

const mgw_storage_hooks& Backend::hooks() {
  return *load().hooks;
}

mgw::testing::FakeHost& host() {
  static mgw::testing::FakeHost instance;
  return instance;
}

namespace {

std::string json_string(const std::string& text) {
  return nlohmann::json(text).dump();
}

// A folder of its own holding one database file, removed with everything in it.
class SqliteDatabase : public TestDatabase {
 public:
  SqliteDatabase() {
    std::string pattern = (fs::temp_directory_path() / "mgw_storage_conf_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
  }
  ~SqliteDatabase() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string config(const std::string& extra) const override {
    std::string json = "{\"path\": " + json_string((dir_ / "gateway.db").string());
    if (!extra.empty()) json += ", " + extra;
    return json + "}";
  }

  void refuse_usage_insert(const std::string& request_id, const std::string& message) override;

 private:
  fs::path dir_;
  int triggers_ = 0;
};

void SqliteDatabase::refuse_usage_insert(const std::string& request_id, const std::string& message) {
  // Planted with a plain SQLite connection, as another program would.
  sqlite3* db = nullptr;
  const fs::path path = dir_ / "gateway.db";
  const std::string sql =
      "CREATE TRIGGER refuse_" + std::to_string(++triggers_) +
      " BEFORE INSERT ON usage_records WHEN NEW.request_id = " + quote_literal(request_id) +
      " BEGIN SELECT RAISE(ABORT, " + quote_literal(message) + "); END";
  char* error = nullptr;
  const bool ok = sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
                  sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK;
  std::string text = error != nullptr ? error : (db != nullptr ? sqlite3_errmsg(db) : "out of memory");
  sqlite3_free(error);
  sqlite3_close(db);
  if (!ok) throw std::runtime_error(sql + ": " + text);
}

class SqliteBackend : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::sqlite; }
  std::string name() const override { return "sqlite"; }
  std::unique_ptr<TestDatabase> fresh_database(const std::string&) override {
    hooks();  // load (or fail to) before the test runs
    return std::make_unique<SqliteDatabase>();
  }

 protected:
  fs::path plugin_path() const override { return MGW_SQLITE_PLUGIN; }
};

class PostgresBackend : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::postgres; }
  std::string name() const override { return "postgres"; }
  std::unique_ptr<TestDatabase> fresh_database(const std::string& test_name) override {
    hooks();
    return std::make_unique<PostgresDatabase>(test_name);
  }

 protected:
  fs::path plugin_path() const override { return MGW_POSTGRES_PLUGIN; }
};

}  // namespace

Backend& backend(BackendKind kind) {
  static SqliteBackend sqlite;
  static PostgresBackend postgres;
  return kind == BackendKind::sqlite ? static_cast<Backend&>(sqlite) : static_cast<Backend&>(postgres);
}

std::string test_cluster_dsn() {
  const char* dir = std::getenv("MGW_TEST_PG_DIR");
  if (dir == nullptr || *dir == '\0')
    throw std::runtime_error(
        "MGW_TEST_PG_DIR is not set: the postgres tests need a test cluster (ctest starts one through "
        "the 'postgres' fixture; by hand: tests/postgres/pg_cluster start DIR, then export "
        "MGW_TEST_PG_DIR=DIR)");
  const fs::path file = fs::path(dir) / "dsn";
  std::ifstream in(file);
  std::string dsn;
  if (!in || !std::getline(in, dsn) || dsn.empty())
    throw std::runtime_error("no PostgreSQL test cluster: " + file.string() +
                             " is missing or empty (did the postgres_cluster_start test run? by hand: "
                             "tests/postgres/pg_cluster start " +
                             std::string(dir) + ")");
  while (!dsn.empty() && std::isspace(static_cast<unsigned char>(dsn.back()))) dsn.pop_back();
  return dsn;
}

std::string unique_schema_name(const std::string& test_name) {
  static std::atomic<int> counter{0};
  std::string name = "t_";
  for (char c : test_name) {
    if (name.size() >= 2 + 36) break;  // identifiers are at most 63 bytes
    name += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  }
  return name + "_" + std::to_string(getpid()) + "_" + std::to_string(++counter);
}

std::string current_test_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (info == nullptr) return "test";
  return std::string(info->test_suite_name()) + "." + info->name();
}

void PrintTo(BackendKind kind, std::ostream* os) {
  *os << (kind == BackendKind::sqlite ? "sqlite" : "postgres");
}

std::string BackendName::operator()(const ::testing::TestParamInfo<BackendKind>& info) const {
  return info.param == BackendKind::sqlite ? "sqlite" : "postgres";
}

}  // namespace storage_test
