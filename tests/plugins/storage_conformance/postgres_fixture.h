// The base of the postgres-only tests: the postgres plugin, a schema of this
// test's own in the test cluster, and ways to open handles on it.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "fixture.h"
#include "postgres_database.h"

namespace storage_test {

class PostgresTest : public ::testing::Test {
 protected:
  void SetUp() override {
    h();  // the plugin first: without it the test fails saying so
    db_ = std::make_unique<PostgresDatabase>(current_test_name());
  }

  const mgw_storage_hooks& h() const { return backend(BackendKind::postgres).hooks(); }
  PostgresDatabase& db() const { return *db_; }
  OpenResult try_open(const std::string& config) const { return open_storage(h(), config); }
  std::unique_ptr<Storage> open(const std::string& extra = {}) const {
    return std::make_unique<Storage>(h(), db_->config(extra));
  }

  // Log lines the plugin sent to the (shared) host that contain `needle`.
  static int log_lines_with(const std::string& needle) {
    int n = 0;
    for (const auto& [level, line] : host().logs()) n += line.find(needle) != std::string::npos ? 1 : 0;
    return n;
  }

  std::unique_ptr<PostgresDatabase> db_;
};

// Milliseconds since `start`.
inline int64_t ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace storage_test
