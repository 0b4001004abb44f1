// A file locked by another program: the busy timeout from the config is
// waited out, then UNAVAILABLE; readers go on (WAL). Many threads and many
// handles on one database: storage_conformance, for every storage plugin.
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
