// The storage backends the conformance tests run against: each names a plugin
// (.so, loaded once like the gateway loads it) and hands every test a fresh,
// isolated database of its own, removed at the end of the test.
#pragma once

#include <gtest/gtest.h>
#include <modelgw/plugin.h>
#include <modelgw/testing/fake_host.hpp>

#include <filesystem>
#include <memory>
#include <ostream>
#include <string>

namespace storage_test {

enum class BackendKind { sqlite, postgres };

// One test's database. Every handle opened with config() shares it, as the
// gateways of one deployment share theirs.
class TestDatabase {
 public:
  virtual ~TestDatabase() = default;
  // storage.options for one more handle on this database; `extra` holds more
  // JSON members to append (e.g. "\"pool_size\": 2").
  virtual std::string config(const std::string& extra = {}) const = 0;
  // Makes the database itself refuse to store the usage record `request_id`
  // (a trigger raising `message`), so that a batch fails part-way through.
  virtual void refuse_usage_insert(const std::string& request_id, const std::string& message) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  // As in the descriptor: "sqlite", "postgres".
  virtual std::string name() const = 0;
  // A fresh database for the test `test_name`. Throws std::runtime_error
  // saying what is missing (plugin not built, no test cluster): the test fails.
  virtual std::unique_ptr<TestDatabase> fresh_database(const std::string& test_name) = 0;

  // The descriptor the plugin's entry symbol returns for `host_api`.
  const mgw_plugin_descriptor* descriptor(const mgw_host_api* host_api);
  const mgw_storage_hooks& hooks();

 protected:
  // The .so to load; empty when it was not built.
  virtual std::filesystem::path plugin_path() const = 0;

 private:
  struct Loaded;
  std::shared_ptr<Loaded> loaded_;
  Loaded& load();
};

// The one host every plugin of this program is given, as in the gateway.
mgw::testing::FakeHost& host();
Backend& backend(BackendKind kind);

// The DSN of the test cluster ($MGW_TEST_PG_DIR/dsn). Throws, saying how to
// get one, when it is missing.
std::string test_cluster_dsn();

// A unique, valid PostgreSQL identifier for `test_name`: "t_<name>_<pid>_<n>".
std::string unique_schema_name(const std::string& test_name);

// "Suite.Test/param" of the running test, for naming its database.
std::string current_test_name();

// Names the parameter in gtest's messages ("where GetParam() = postgres").
void PrintTo(BackendKind kind, std::ostream* os);

// Names the parameter in test names: .../sqlite, .../postgres.
struct BackendName {
  std::string operator()(const ::testing::TestParamInfo<BackendKind>& info) const;
};

}  // namespace storage_test
