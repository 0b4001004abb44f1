// Usage that is never dropped, from the outside: a burst past the queue limit,
// a store locked mid-run (SQLite's own lock, as another process holding a
// write transaction would), a journal that cannot be written (/dev/full: a
// full disk, as root sees it too), SIGKILL shortly after responses ended, and
// SIGTERM with storage down followed by a restart. Every served request ends
// with exactly one usage record; a request that could not be recorded was not
// served.
#include "harness/checks.h"
#include "harness/stack.h"

#include <sqlite3.h>

#include <csignal>
#include <map>
#include <mutex>
#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;

// Holds SQLite's write lock on the gateway's database (BEGIN IMMEDIATE, as a
// process in a write transaction does) until released. WAL readers go on.
class WriteLock {
 public:
  explicit WriteLock(const std::string& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) throw std::runtime_error("open " + path);
    sqlite3_busy_timeout(db_, 5000);
    exec("BEGIN IMMEDIATE");
  }
  ~WriteLock() {
    if (held_) exec("ROLLBACK");
    sqlite3_close(db_);
  }
  void release() {
    exec("ROLLBACK");
    held_ = false;
  }

 private:
  void exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string why = err != nullptr ? err : "?";
      sqlite3_free(err);
      throw std::runtime_error(std::string(sql) + ": " + why);
    }
  }
  sqlite3* db_ = nullptr;
  bool held_ = true;
};

json readyz(int port) {
  return http_get(port, "/readyz").json();
}

std::size_t count_lines(const std::string& log, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = log.find(needle); at != std::string::npos; at = log.find(needle, at + 1)) ++n;
  return n;
}

// `total` chat requests over `threads` connections at once; the request ids
// of those answered 200, and how many got anything else.
struct Burst {
  std::vector<std::string> served;
  std::map<int, int> others;  // status -> count
};
Burst burst(int port, const std::string& key, int threads, int per_thread) {
  Burst out;
  std::mutex mutex;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        const auto r = post_chat(port, key, chat_body("gpt-4o-mini", "b" + std::to_string(t * 1000 + i)));
        std::lock_guard lock(mutex);
        if (r.status == 200) {
          out.served.push_back(r.header("x-request-id"));
        } else {
          ++out.others[r.status];
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  return out;
}

void expect_one_record_each(const UsageDb& db, const std::vector<std::string>& ids) {
  for (const auto& id : ids) EXPECT_EQ(db.records_for(id).size(), 1u) << id;
}

TEST(UsageDurabilityTest, ABurstPastTheQueueLimitDropsNoRecord) {
  GatewayOptions o;
  o.extra_usage_yaml = "  queue_limit: 100\n  batch_size: 16\n";
  auto stack = start_stack(o);
  const Burst b = burst(stack->port(), stack->key.key, 30, 10);
  // Past the limit the queue spills to the journal. On a machine too busy to
  // give the writer thread a turn, the queue can still reach the limit: then
  // chat is refused with 503 (backpressure, nothing sent upstream), never
  // served without its record. The first queue_limit are always served.
  EXPECT_GE(b.served.size(), 100u) << "the queue holds queue_limit records before it refuses anything";
  for (const auto& [status, count] : b.others) EXPECT_EQ(status, 503) << count << " answers";
  EXPECT_EQ(b.served.size() + static_cast<std::size_t>(b.others.count(503) ? b.others.at(503) : 0), 300u);
  ASSERT_TRUE(
      eventually([&] { return stack->usage().count_all() >= static_cast<std::int64_t>(b.served.size()); }));
  EXPECT_EQ(stack->usage().count_all(), static_cast<std::int64_t>(b.served.size()));
  expect_one_record_each(stack->usage(), b.served);
  const std::string log = stack->gateway->log();
  EXPECT_EQ(log.find("cannot be stored"), std::string::npos) << "storage never failed; nothing may blame it";
  EXPECT_EQ(log.find("lost"), std::string::npos);
}

TEST(UsageDurabilityTest, AStoreLockedMidRunThenFreedEndsWithOneRecordPerServedRequest) {
  GatewayOptions o;
  o.storage_busy_timeout_ms = 100;
  auto stack = start_stack(o);
  const int port = stack->port();
  std::vector<std::string> ids;
  auto send = [&](int n) {
    for (int i = 0; i < n; ++i) {
      const auto r =
          post_chat(port, stack->key.key, chat_body("gpt-4o-mini", "l" + std::to_string(ids.size())));
      ASSERT_EQ(r.status, 200) << r.body;
      ids.push_back(r.header("x-request-id"));
    }
  };
  send(5);
  ASSERT_TRUE(eventually([&] { return stack->usage().count_all() == 5; }));
  {
    WriteLock lock(stack->gateway->db_path());
    send(20);  // served: the journal keeps their records
    ASSERT_TRUE(eventually([&] { return readyz(port)["usage"]["journal_records"].get<int>() >= 20; }))
        << readyz(port).dump();
    const json ready = readyz(port);
    EXPECT_EQ(ready["status"], "ready") << "a journal that takes records keeps the instance ready";
    EXPECT_EQ(ready["usage"]["state"], "journaling");
    EXPECT_GT(ready["usage"]["journal_bytes"].get<int>(), 0);
    // Storage keeps failing for a second: retried with backoff, logged once.
    std::this_thread::sleep_for(1000ms);
    send(5);
    lock.release();
  }
  ASSERT_TRUE(eventually([&] { return stack->usage().count_all() == 30; })) << stack->usage().count_all();
  expect_one_record_each(stack->usage(), ids);
  ASSERT_TRUE(eventually([&] { return readyz(port)["usage"]["state"] == "storing"; }));
  EXPECT_EQ(readyz(port)["usage"]["journal_records"], 0);
  // Log lines are written in batches (within logging's flush interval).
  EXPECT_TRUE(stack->gateway->wait_log("storage answers again", 2s)) << stack->gateway->log();
  const std::string log = stack->gateway->log();
  EXPECT_EQ(count_lines(log, "cannot be stored"), 1u) << "one line per change of state, not per attempt";
  EXPECT_EQ(count_lines(log, "storage answers again"), 1u);
}

TEST(UsageDurabilityTest, WhenNeitherStoreNorJournalTakesARecordChatGets503UntilOneDoes) {
  GatewayOptions o;
  o.storage_busy_timeout_ms = 100;
  o.journal_path = "/dev/full";  // every write fails with ENOSPC, as a full disk's does
  auto stack = start_stack(o);
  const int port = stack->port();
  std::string first;
  std::string refused_id;
  {
    WriteLock lock(stack->gateway->db_path());
    const auto served = post_chat(port, stack->key.key, chat_body("gpt-4o-mini", "first"));
    ASSERT_EQ(served.status, 200);
    first = served.header("x-request-id");
    ASSERT_TRUE(eventually([&] { return http_get(port, "/readyz").status == 503; }));
    EXPECT_EQ(readyz(port)["usage"]["state"], "unrecordable");
    EXPECT_EQ(readyz(port)["usage"]["queued"], 1) << "held in memory, not dropped";
    const auto refused = post_chat(port, stack->key.key, chat_body("gpt-4o-mini", "second"));
    EXPECT_EQ(refused.status, 503);
    const json err = json::parse(refused.body)["error"];
    EXPECT_EQ(err["code"], "usage_unrecordable");
    EXPECT_EQ(refused.header("retry-after"), "1");
    refused_id = refused.header("x-request-id");
    // Not a spin: a second of failure writes a handful of lines, not thousands.
    const std::size_t before = stack->gateway->log().size();
    std::this_thread::sleep_for(1000ms);
    EXPECT_LT(stack->gateway->log().size() - before, 2000u);
    lock.release();
  }
  ASSERT_TRUE(eventually([&] { return http_get(port, "/readyz").status == 200; }));
  const auto again = post_chat(port, stack->key.key, chat_body("gpt-4o-mini", "third"));
  ASSERT_EQ(again.status, 200);
  ASSERT_TRUE(eventually([&] { return stack->usage().count_all() == 2; })) << stack->usage().count_all();
  expect_one_record_each(stack->usage(), {first, again.header("x-request-id")});
  EXPECT_TRUE(stack->usage().records_for(refused_id).empty()) << "a refused request was not served";
}

TEST(UsageDurabilityTest, SigkillLosesNoRecordOfAResponseThatEnded100msBefore) {
  GatewayOptions o;
  o.flush_interval_ms = 0;  // the gateway's default
  auto stack = start_stack(o);
  const Burst b = burst(stack->port(), stack->key.key, 10, 20);
  ASSERT_EQ(b.served.size(), 200u);
  std::this_thread::sleep_for(100ms);
  stack->gateway->kill();
  EXPECT_EQ(stack->usage().count_all(), 200);
  expect_one_record_each(stack->usage(), b.served);
}

TEST(UsageDurabilityTest, SigtermWithStorageDownKeepsTheRecordsForTheNextRunWhichStoresThemOnce) {
  GatewayOptions o;
  o.storage_busy_timeout_ms = 100;
  auto stack = start_stack(o);
  const std::string db = stack->gateway->db_path();
  // The next run: the same store and the same journal, started once this one stopped.
  GatewayOptions next_options = o;
  next_options.upstream_port = stack->fake->port();
  next_options.db_path = db;
  next_options.journal_path = stack->gateway->dir() + "/usage.journal";
  std::vector<std::string> ids;
  {
    WriteLock lock(db);
    for (int i = 0; i < 10; ++i) {
      const auto r =
          post_chat(stack->port(), stack->key.key, chat_body("gpt-4o-mini", "t" + std::to_string(i)));
      ASSERT_EQ(r.status, 200) << r.body;
      ids.push_back(r.header("x-request-id"));
    }
    stack->gateway->send_signal(SIGTERM);
    const auto code = stack->gateway->wait_exit(15s);
    ASSERT_TRUE(code.has_value());
    EXPECT_EQ(*code, 0) << stack->gateway->log();
  }
  EXPECT_EQ(stack->usage().count_all(), 0) << "storage was locked: the records are in the journal";
  Gateway next(next_options);
  next.start();
  ASSERT_TRUE(eventually([&] { return UsageDb(db).count_all() == 10; })) << next.log();
  expect_one_record_each(UsageDb(db), ids);
  EXPECT_NE(next.log().find("earlier run could not store"), std::string::npos);
}

}  // namespace
}  // namespace it
