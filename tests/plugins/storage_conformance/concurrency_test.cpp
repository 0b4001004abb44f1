// Many threads on one handle, and two handles on one database.
// (A locked SQLite file and its busy timeout: storage_sqlite.)
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fixture.h"

namespace storage_test {
namespace {

class ConcurrencyTest : public StorageTest {};

TEST_P(ConcurrencyTest, EightThreadsInsertAndLookUpWithoutErrors) {
  constexpr int kThreads = 8;
  constexpr int kIterations = 40;
  mgw_storage* const handle = storage();
  const int64_t tenant = create_tenant(handle, "acme");
  std::vector<int64_t> key_ids;
  for (int t = 0; t < kThreads; ++t) key_ids.push_back(create_key(handle, {tenant, fake_hash(1000 + t)}));

  Failures failures;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kIterations; ++i) {
        mgw::testing::TextRecorder error;
        // Write: a usage batch of two, and a new key.
        Usage u;
        u.request_id = "req_" + std::to_string(t) + "_" + std::to_string(i);
        u.tenant_id = tenant;
        u.key_id = key_ids[t];
        u.created_unix_ms = i + 1;
        Usage second = u;
        second.request_id += "_b";
        mgw_usage_record batch[2] = {u.record(), second.record()};
        if (auto rc = h().on_usage_insert(handle, batch, 2, &error.sink); rc != MGW_OK)
          failures.add("usage insert " + std::to_string(rc) + ": " + error.text);
        const NewKey new_key{tenant, fake_hash(100000 + t * kIterations + i)};
        auto key = new_key.record();
        int64_t new_id = 0;
        if (auto rc = h().on_api_key_create(handle, &key, &new_id, &error.sink); rc != MGW_OK || new_id <= 0)
          failures.add("key create " + std::to_string(rc) + ": " + error.text);
        // Reads: the hot-path key lookup, a tenant lookup, a usage query.
        RowRecorder rows;
        auto hash = fake_hash(1000 + t);
        if (auto rc = h().on_api_key_find_by_hash(handle, mgw::str(hash), &rows.sink, &error.sink);
            rc != MGW_OK || rows.keys.size() != 1 || rows.keys[0].id != key_ids[t])
          failures.add("key find " + std::to_string(rc) + ": " + error.text);
        if (auto rc = h().on_tenant_find(handle, mgw::str("acme"), &rows.sink, &error.sink);
            rc != MGW_OK || rows.tenants.size() != 1)
          failures.add("tenant find " + std::to_string(rc) + ": " + error.text);
        mgw_usage_query q{};
        q.struct_size = sizeof q;
        q.request_id = mgw::str(u.request_id);
        if (auto rc = h().on_usage_query(handle, &q, &rows.sink, &error.sink);
            rc != MGW_OK || rows.usage.size() != 1)
          failures.add("usage query " + std::to_string(rc) + ": " + error.text);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_TRUE(failures.lines.empty()) << failures.lines.size() << " failures, first: " << failures.first();

  RowRecorder rows;
  mgw_usage_query q{};
  q.struct_size = sizeof q;
  q.limit = 1000;
  ASSERT_EQ(h().on_usage_query(handle, &q, &rows.sink, nullptr), MGW_OK);
  EXPECT_EQ(rows.usage.size(), static_cast<size_t>(kThreads * kIterations * 2));
  ASSERT_EQ(h().on_api_key_list(handle, 0, &rows.sink, nullptr), MGW_OK);
  EXPECT_EQ(rows.keys.size(), static_cast<size_t>(kThreads + kThreads * kIterations));
}

TEST_P(ConcurrencyTest, TwoHandlesOnOneFileBothWrite) {
  // Like the server and the CLI, or two gateways: two independent opens of the
  // same database, kept apart only by the database's own locking.
  constexpr int kWrites = 60;
  auto first = open();
  auto second = open();
  Failures failures;
  auto writer = [&](mgw_storage* storage, const std::string& prefix) {
    for (int i = 0; i < kWrites; ++i) {
      mgw::testing::TextRecorder error;
      const std::string name = prefix + std::to_string(i);
      if (auto rc = h().on_tenant_create(storage, mgw::str(name), i, nullptr, &error.sink); rc != MGW_OK)
        failures.add(name + ": " + std::to_string(rc) + " " + error.text);
      Usage u;
      u.request_id = name;
      auto record = u.record();
      if (auto rc = h().on_usage_insert(storage, &record, 1, &error.sink); rc != MGW_OK)
        failures.add(name + " usage: " + std::to_string(rc) + " " + error.text);
    }
  };
  std::thread a(writer, first->get(), "first-");
  std::thread b(writer, second->get(), "second-");
  a.join();
  b.join();
  EXPECT_TRUE(failures.lines.empty()) << failures.lines.size() << " failures, first: " << failures.first();

  // Each handle sees the other's writes.
  for (mgw_storage* storage : {first->get(), second->get()}) {
    RowRecorder rows;
    ASSERT_EQ(h().on_tenant_list(storage, &rows.sink, nullptr), MGW_OK);
    EXPECT_EQ(rows.tenants.size(), static_cast<size_t>(2 * kWrites));
    EXPECT_EQ(h().on_tenant_find(storage, mgw::str("first-7"), &rows.sink, nullptr), MGW_OK);
    EXPECT_EQ(h().on_tenant_find(storage, mgw::str("second-7"), &rows.sink, nullptr), MGW_OK);
  }
  // Same name from the other handle: the UNIQUE index spans both.
  EXPECT_EQ(h().on_tenant_create(second->get(), mgw::str("first-0"), 1, nullptr, nullptr), MGW_CONFLICT);
}

INSTANTIATE_TEST_SUITE_P(Backends, ConcurrencyTest, MGW_STORAGE_BACKENDS);

}  // namespace
}  // namespace storage_test
