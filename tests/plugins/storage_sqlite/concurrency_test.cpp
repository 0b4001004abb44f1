// Many threads on one handle, two handles on one file, and a locked file.
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"

namespace sqlite_test {
namespace {

using ::testing::HasSubstr;

class ConcurrencyTest : public StorageTest {};

// Collects failures from worker threads (gtest assertions belong on the main thread).
struct Failures {
  std::mutex mutex;
  std::vector<std::string> lines;
  void add(const std::string& line) {
    std::lock_guard lock(mutex);
    lines.push_back(line);
  }
};

TEST_F(ConcurrencyTest, EightThreadsInsertAndLookUpWithoutErrors) {
  constexpr int kThreads = 8;
  constexpr int kIterations = 40;
  Storage storage(db_path());
  const int64_t tenant = create_tenant(storage.get(), "acme");
  std::vector<int64_t> key_ids;
  for (int t = 0; t < kThreads; ++t)
    key_ids.push_back(create_key(storage.get(), {tenant, fake_hash(1000 + t)}));

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
        if (auto rc = h().on_usage_insert(storage.get(), batch, 2, &error.sink); rc != MGW_OK)
          failures.add("usage insert " + std::to_string(rc) + ": " + error.text);
        const NewKey new_key{tenant, fake_hash(100000 + t * kIterations + i)};
        auto key = new_key.record();
        int64_t new_id = 0;
        if (auto rc = h().on_api_key_create(storage.get(), &key, &new_id, &error.sink);
            rc != MGW_OK || new_id <= 0)
          failures.add("key create " + std::to_string(rc) + ": " + error.text);
        // Reads: the hot-path key lookup, a tenant lookup, a usage query.
        RowRecorder rows;
        auto hash = fake_hash(1000 + t);
        if (auto rc = h().on_api_key_find_by_hash(storage.get(), mgw::str(hash), &rows.sink, &error.sink);
            rc != MGW_OK || rows.keys.size() != 1 || rows.keys[0].id != key_ids[t])
          failures.add("key find " + std::to_string(rc) + ": " + error.text);
        if (auto rc = h().on_tenant_find(storage.get(), mgw::str("acme"), &rows.sink, &error.sink);
            rc != MGW_OK || rows.tenants.size() != 1)
          failures.add("tenant find " + std::to_string(rc) + ": " + error.text);
        mgw_usage_query q{};
        q.struct_size = sizeof q;
        q.request_id = mgw::str(u.request_id);
        if (auto rc = h().on_usage_query(storage.get(), &q, &rows.sink, &error.sink);
            rc != MGW_OK || rows.usage.size() != 1)
          failures.add("usage query " + std::to_string(rc) + ": " + error.text);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_TRUE(failures.lines.empty())
      << failures.lines.size() << " failures, first: " << failures.lines.front();

  RowRecorder rows;
  mgw_usage_query q{};
  q.struct_size = sizeof q;
  q.limit = 1000;
  ASSERT_EQ(h().on_usage_query(storage.get(), &q, &rows.sink, nullptr), MGW_OK);
  EXPECT_EQ(rows.usage.size(), static_cast<size_t>(kThreads * kIterations * 2));
  ASSERT_EQ(h().on_api_key_list(storage.get(), 0, &rows.sink, nullptr), MGW_OK);
  EXPECT_EQ(rows.keys.size(), static_cast<size_t>(kThreads + kThreads * kIterations));
}

TEST_F(ConcurrencyTest, TwoHandlesOnOneFileBothWrite) {
  // Like the server and the CLI: two independent opens of the same file, each
  // with its own writer connection, kept apart only by SQLite's file locks.
  constexpr int kWrites = 60;
  Storage first(db_path());
  Storage second(db_path());
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
  std::thread a(writer, first.get(), "first-");
  std::thread b(writer, second.get(), "second-");
  a.join();
  b.join();
  EXPECT_TRUE(failures.lines.empty())
      << failures.lines.size() << " failures, first: " << failures.lines.front();

  // Each handle sees the other's writes.
  for (mgw_storage* storage : {first.get(), second.get()}) {
    RowRecorder rows;
    ASSERT_EQ(h().on_tenant_list(storage, &rows.sink, nullptr), MGW_OK);
    EXPECT_EQ(rows.tenants.size(), static_cast<size_t>(2 * kWrites));
    EXPECT_EQ(h().on_tenant_find(storage, mgw::str("first-7"), &rows.sink, nullptr), MGW_OK);
    EXPECT_EQ(h().on_tenant_find(storage, mgw::str("second-7"), &rows.sink, nullptr), MGW_OK);
  }
  // Same name from the other handle: the UNIQUE index spans both.
  EXPECT_EQ(h().on_tenant_create(second.get(), mgw::str("first-0"), 1, nullptr, nullptr), MGW_CONFLICT);
}

TEST_F(ConcurrencyTest, LockedFileIsUnavailableAfterTheBusyTimeoutAndReadsGoOn) {
  Storage storage(db_path(), R"("busy_timeout_ms": 200)");
  create_tenant(storage.get(), "acme");
  RawDb other(db_path());
  other.exec("BEGIN IMMEDIATE");  // another process holds the write lock

  mgw::testing::TextRecorder error;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(h().on_tenant_create(storage.get(), mgw::str("globex"), 1, nullptr, &error.sink),
            MGW_UNAVAILABLE);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_THAT(error.text, HasSubstr("locked"));
  EXPECT_GE(waited, std::chrono::milliseconds(150)) << "the busy timeout must be waited out first";
  EXPECT_LT(waited, std::chrono::seconds(4)) << "busy_timeout_ms from the config must be used";

  // WAL: readers are not blocked by the other process's write lock.
  RowRecorder rows;
  EXPECT_EQ(h().on_tenant_find(storage.get(), mgw::str("acme"), &rows.sink, nullptr), MGW_OK);

  // Once the lock is gone, writing works again.
  other.exec("ROLLBACK");
  EXPECT_EQ(h().on_tenant_create(storage.get(), mgw::str("globex"), 1, nullptr, nullptr), MGW_OK);
}

TEST_F(ConcurrencyTest, WriterWaitsForAShortLockInsteadOfFailing) {
  Storage storage(db_path(), R"("busy_timeout_ms": 5000)");
  RawDb other(db_path());
  other.exec("BEGIN IMMEDIATE");
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    other.exec("COMMIT");
  });
  mgw::testing::TextRecorder error;
  EXPECT_EQ(h().on_tenant_create(storage.get(), mgw::str("acme"), 1, nullptr, &error.sink), MGW_OK)
      << error.text;
  release.join();
}

}  // namespace
}  // namespace sqlite_test
