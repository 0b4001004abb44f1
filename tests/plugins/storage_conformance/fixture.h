// The base of every parameterized storage test: the backend named by the
// parameter, a fresh database of its own, one open handle on it, and the
// helpers most tests need. Every test suite is instantiated with
//   INSTANTIATE_TEST_SUITE_P(Backends, SomeTest, MGW_STORAGE_BACKENDS);
// so that the same assertions run against every storage plugin.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <modelgw/plugin.h>
#include <modelgw/sdk.hpp>
#include <modelgw/testing/fake_host.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.h"
#include "storage_records.h"

#define MGW_STORAGE_BACKENDS                                                                 \
  ::testing::Values(storage_test::BackendKind::sqlite, storage_test::BackendKind::postgres), \
      storage_test::BackendName()

namespace storage_test {

// Wall-clock milliseconds since the epoch, as the gateway stamps records.
inline std::int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// What on_storage_open answered.
struct OpenResult {
  mgw_status status = MGW_INTERNAL;
  mgw_storage* storage = nullptr;
  std::string error;
};

inline OpenResult open_storage(const mgw_storage_hooks& hooks, const std::string& config_json) {
  OpenResult result;
  mgw::testing::TextRecorder error;
  result.status = hooks.on_storage_open(host().api(), mgw::str(config_json), &result.storage, &error.sink);
  result.error = error.text;
  return result;
}

// An open storage handle (one gateway process's view of the database),
// closed at the end of its scope.
class Storage {
 public:
  Storage(const mgw_storage_hooks& hooks, const std::string& config) : hooks_(hooks) {
    auto result = open_storage(hooks, config);
    if (result.status != MGW_OK)
      throw std::runtime_error("on_storage_open failed (" + std::to_string(result.status) +
                               "): " + result.error);
    storage_ = result.storage;
  }
  ~Storage() { hooks_.on_storage_close(storage_); }
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  mgw_storage* get() const { return storage_; }

 private:
  const mgw_storage_hooks& hooks_;
  mgw_storage* storage_ = nullptr;
};

class StorageTest : public ::testing::TestWithParam<BackendKind> {
 protected:
  // Throws (failing the test with the reason) when the backend is not there.
  void SetUp() override {
    db_ = backend().fresh_database(current_test_name());
    storage_ = open();
  }

  Backend& backend() const { return storage_test::backend(GetParam()); }
  const mgw_storage_hooks& h() const { return backend().hooks(); }
  TestDatabase& db() const { return *db_; }
  // The handle SetUp opened.
  mgw_storage* storage() const { return storage_->get(); }

  // One more handle on this test's database: another gateway process.
  std::unique_ptr<Storage> open(const std::string& extra = {}) const {
    return std::make_unique<Storage>(h(), db_->config(extra));
  }

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

 private:
  // Declared first, destroyed last: every handle is closed before the database goes.
  std::unique_ptr<TestDatabase> db_;
  std::unique_ptr<Storage> storage_;
};

}  // namespace storage_test
