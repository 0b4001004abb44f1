// Shared pieces of the sqlite-only storage tests: the loaded plugin, a
// temporary folder per test, an open-storage handle and a raw SQLite
// connection for looking at the file from outside the plugin. The row
// recorders are shared with storage_conformance (storage_records.h), where
// the tests of hook semantics run against every storage plugin.
#pragma once

#define BOOST_DLL_USE_STD_FS
#include <boost/dll/shared_library.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <modelgw/plugin.h>
#include <sqlite3.h>
#include <modelgw/sdk.hpp>
#include <modelgw/testing/fake_host.hpp>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "storage_records.h"

namespace sqlite_test {

using namespace storage_test;
namespace fs = std::filesystem;

// The plugin, loaded once for the whole program like the gateway does.
struct Plugin {
  boost::dll::shared_library library{fs::path(MGW_SQLITE_PLUGIN)};
  mgw_plugin_entry_fn entry =
      &library.get<const mgw_plugin_descriptor*(const mgw_host_api*)>(MGW_ENTRY_SYMBOL);
};

inline mgw::testing::FakeHost& host() {
  static mgw::testing::FakeHost instance;
  return instance;
}

inline Plugin& plugin() {
  static Plugin instance;
  return instance;
}

inline const mgw_storage_hooks& hooks() {
  static const auto* table = static_cast<const mgw_storage_hooks*>(plugin().entry(host().api())->hooks);
  return *table;
}

// A folder of its own, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "mgw_sqlite_test_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// What on_storage_open answered.
struct OpenResult {
  mgw_status status = MGW_INTERNAL;
  mgw_storage* storage = nullptr;
  std::string error;
};

inline OpenResult open_storage(const std::string& config_json) {
  OpenResult result;
  mgw::testing::TextRecorder error;
  result.status = hooks().on_storage_open(host().api(), mgw::str(config_json), &result.storage, &error.sink);
  result.error = error.text;
  return result;
}

// {"path": "<path>"}, plus extra members when given (e.g. "\"busy_timeout_ms\": 50").
inline std::string config_for(const fs::path& path, const std::string& extra = {}) {
  std::string json = "{\"path\": \"" + path.string() + "\"";
  if (!extra.empty()) json += ", " + extra;
  return json + "}";
}

// An open storage handle, closed at the end of its scope.
class Storage {
 public:
  explicit Storage(const fs::path& path, const std::string& extra = {}) {
    auto result = open_storage(config_for(path, extra));
    if (result.status != MGW_OK)
      throw std::runtime_error("on_storage_open failed (" + std::to_string(result.status) +
                               "): " + result.error);
    storage_ = result.storage;
  }
  ~Storage() { hooks().on_storage_close(storage_); }
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  mgw_storage* get() const { return storage_; }

 private:
  mgw_storage* storage_ = nullptr;
};

// A plain SQLite connection to the same file, as another program would open it.
class RawDb {
 public:
  explicit RawDb(const fs::path& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) throw std::runtime_error(sqlite3_errmsg(db_));
  }
  ~RawDb() { sqlite3_close(db_); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  void exec(const std::string& sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      std::string text = message != nullptr ? message : "?";
      sqlite3_free(message);
      throw std::runtime_error(sql + ": " + text);
    }
  }

  // Every row of the first column, as text.
  std::vector<std::string> column(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
      throw std::runtime_error(sql + ": " + sqlite3_errmsg(db_));
    std::vector<std::string> values;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      const auto* text = sqlite3_column_text(stmt, 0);
      values.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "");
    }
    sqlite3_finalize(stmt);
    return values;
  }

  std::string text(const std::string& sql) {
    auto values = column(sql);
    return values.empty() ? std::string() : values.front();
  }

  int64_t integer(const std::string& sql) { return std::stoll(text(sql)); }

 private:
  sqlite3* db_ = nullptr;
};

// Base fixture: a fresh folder and the path of a database file inside it.
class StorageTest : public ::testing::Test {
 protected:
  fs::path db_path() const { return dir_.path() / "gateway.db"; }
  const mgw_storage_hooks& h() const { return hooks(); }

  int64_t create_tenant(mgw_storage* storage, const std::string& name, int64_t now = 1000) {
    int64_t id = 0;
    mgw::testing::TextRecorder error;
    EXPECT_EQ(h().on_tenant_create(storage, mgw::str(name), now, &id, &error.sink), MGW_OK) << error.text;
    return id;
  }

  int64_t create_key(mgw_storage* storage, const NewKey& key) {
    int64_t id = 0;
    auto record = key.record();
    mgw::testing::TextRecorder error;
    EXPECT_EQ(h().on_api_key_create(storage, &record, &id, &error.sink), MGW_OK) << error.text;
    return id;
  }

  void insert_usage(mgw_storage* storage, const std::vector<Usage>& rows) {
    std::vector<mgw_usage_record> records;
    for (const auto& row : rows) records.push_back(row.record());
    mgw::testing::TextRecorder error;
    EXPECT_EQ(h().on_usage_insert(storage, records.data(), records.size(), &error.sink), MGW_OK)
        << error.text;
  }

  TempDir dir_;
};

}  // namespace sqlite_test
