// The postgres plugin when the server goes away under it: a server stopped
// mid-use (a throw-away cluster of this test's own, halted and restarted),
// connections terminated between calls and in the middle of a batch. Hooks
// answer MGW_UNAVAILABLE while there is no server, recover on their own (no
// reopening), and never leave half a transaction behind.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "postgres_fixture.h"
#include "throwaway_cluster.h"

namespace storage_test {
namespace {

namespace fs = std::filesystem;
using ::testing::AnyOf;
using ::testing::IsEmpty;
using ::testing::Not;

class PostgresFaultTest : public PostgresTest {
 protected:
  // Request ids of the stored usage records, or the failing status.
  std::multiset<std::string> stored(mgw_storage* s) {
    mgw_usage_query q{};
    q.struct_size = sizeof q;
    q.limit = 1000;
    RowRecorder rows;
    mgw::testing::TextRecorder error;
    EXPECT_EQ(h().on_usage_query(s, &q, &rows.sink, &error.sink), MGW_OK) << error.text;
    std::multiset<std::string> ids;
    for (const auto& u : rows.usage) ids.insert(u.request_id);
    return ids;
  }

  mgw_status find_tenant(mgw_storage* s, const std::string& name, std::string* error_text = nullptr) {
    RowRecorder rows;
    mgw::testing::TextRecorder error;
    const mgw_status st = h().on_tenant_find(s, mgw::str(name), &rows.sink, &error.sink);
    if (error_text != nullptr) *error_text = error.text;
    return st;
  }

  mgw_status insert(mgw_storage* s, const std::vector<Usage>& rows, std::string* error_text = nullptr) {
    std::vector<mgw_usage_record> records;
    for (const auto& u : rows) records.push_back(u.record());
    mgw::testing::TextRecorder error;
    const mgw_status st = h().on_usage_insert(s, records.data(), records.size(), &error.sink);
    if (error_text != nullptr) *error_text = error.text;
    return st;
  }

  static Usage usage(const std::string& id, int64_t lease = 0) {
    Usage u;
    u.request_id = id;
    u.tenant_id = 1;
    u.created_unix_ms = 5000;
    u.cost_micros = 7;
    if (lease != 0) u.charges = {mgw_ledger_charge{lease, 7}};
    return u;
  }

  mgw_lease_grant take(mgw_storage* s, const std::string& account) {
    mgw_lease_request r{};
    r.struct_size = sizeof r;
    r.account = mgw::str(account);
    r.window_start_unix_ms = 100;
    r.limit = 1'000'000;
    r.want = 1000;
    r.at_least = 1;
    r.expires_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count() +
                        600'000;
    r.holder = mgw::str("test");
    mgw_lease_grant g{};
    g.struct_size = sizeof g;
    mgw::testing::TextRecorder error;
    EXPECT_EQ(h().on_lease_take(s, &r, &g, &error.sink), MGW_OK) << error.text;
    return g;
  }

  int64_t spent(mgw_storage* s, const std::string& account) {
    mgw_ledger_state st{};
    st.struct_size = sizeof st;
    EXPECT_EQ(h().on_ledger_read(s, mgw::str(account), 100, 0, &st, nullptr), MGW_OK);
    return st.spent;
  }
};

TEST_F(PostgresFaultTest, ServerStoppedMidUseIsUnavailableThenWorksAfterRestartWithoutReopening) {
  ThrowAwayCluster cluster;  // declared first: it outlives the schema and the handle
  PostgresDatabase database(current_test_name(), cluster.dsn());
  Storage storage(h(), database.config("\"connect_timeout_ms\": 2000, \"acquire_timeout_ms\": 2000"));
  int64_t tenant = 0;
  ASSERT_EQ(h().on_tenant_create(storage.get(), mgw::str("acme"), 1, &tenant, nullptr), MGW_OK);
  ASSERT_EQ(insert(storage.get(), {usage("before")}), MGW_OK);

  cluster.halt();
  // Every kind of call, reads and writes: UNAVAILABLE, promptly, saying why.
  auto down = [&](const char* what, auto call) {
    const auto start = std::chrono::steady_clock::now();
    mgw::testing::TextRecorder error;
    EXPECT_EQ(call(&error.sink), MGW_UNAVAILABLE) << what << ": " << error.text;
    EXPECT_LT(ms_since(start), 15'000) << what << " must not wait for the server for long";
    EXPECT_THAT(error.text, Not(IsEmpty())) << what;
  };
  for (int round = 0; round < 2; ++round) {
    down("tenant find", [&](const mgw_text_sink* e) {
      RowRecorder rows;
      return h().on_tenant_find(storage.get(), mgw::str("acme"), &rows.sink, e);
    });
    down("tenant create", [&](const mgw_text_sink* e) {
      return h().on_tenant_create(storage.get(), mgw::str("while-down"), 1, nullptr, e);
    });
    down("usage insert", [&](const mgw_text_sink* e) {
      const Usage u = usage("while-down");
      const auto r = u.record();
      return h().on_usage_insert(storage.get(), &r, 1, e);
    });
    down("audit heads", [&](const mgw_text_sink* e) {
      RowRecorder rows;
      return h().on_audit_heads(storage.get(), &rows.sink, e);
    });
  }

  cluster.restart();
  std::string error;
  EXPECT_EQ(find_tenant(storage.get(), "acme", &error), MGW_OK)
      << "the first call after the restart must reconnect by itself: " << error;
  // Bounded: if the first call failed, the handle must still recover soon.
  for (int i = 0; i < 50 && find_tenant(storage.get(), "acme") != MGW_OK; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // Every pooled connection works again: more calls than the pool has connections.
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(find_tenant(storage.get(), "acme", &error), MGW_OK) << "call " << i << ": " << error;
    EXPECT_EQ(insert(storage.get(), {usage("after_" + std::to_string(i))}, &error), MGW_OK) << error;
  }
  EXPECT_EQ(find_tenant(storage.get(), "while-down"), MGW_NOT_FOUND);
  const auto ids = stored(storage.get());
  EXPECT_EQ(ids.count("before"), 1u);
  EXPECT_EQ(ids.count("while-down"), 0u);
  EXPECT_EQ(ids.size(), 9u);
}

TEST_F(PostgresFaultTest, ConnectionsTerminatedBetweenCallsAreReplacedByTheNextCall) {
  auto storage = open();
  ASSERT_EQ(h().on_tenant_create(storage->get(), mgw::str("acme"), 1, nullptr, nullptr), MGW_OK);
  for (int round = 0; round < 3; ++round) {
    // Use the pool from several threads so that more than one connection is open.
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
      threads.emplace_back([&] {
        for (int i = 0; i < 5; ++i) find_tenant(storage->get(), "acme");
      });
    for (auto& th : threads) th.join();
    ASSERT_GT(db().plugin_backends(), 0);
    db().terminate_plugin_backends();  // as an operator's pg_terminate_backend, or a failover

    std::string error;
    EXPECT_EQ(find_tenant(storage->get(), "acme", &error), MGW_OK) << "round " << round << ": " << error;
    EXPECT_EQ(insert(storage->get(), {usage("r" + std::to_string(round))}, &error), MGW_OK) << error;
    EXPECT_EQ(
        h().on_tenant_create(storage->get(), mgw::str("t" + std::to_string(round)), 1, nullptr, nullptr),
        MGW_OK);
  }
  EXPECT_EQ(stored(storage->get()), (std::multiset<std::string>{"r0", "r1", "r2"}));
}

TEST_F(PostgresFaultTest, AConnectionTerminatedMidBatchLeavesNothingHalfApplied) {
  auto storage = open();
  const auto lease = take(storage->get(), "budget:kill");
  // The batch's second record waits in a trigger while the marker row exists,
  // so its first record is written but not committed when the backend dies.
  const std::string hold = quote_ident(db().schema()) + ".mgw_test_hold";
  db().admin().exec("CREATE TABLE " + hold + " (x int); INSERT INTO " + hold + " VALUES (1)");
  db().on_usage_insert_of(
      "slow", "IF EXISTS (SELECT 1 FROM " + hold + ") THEN PERFORM pg_sleep(8); END IF; RETURN NEW;");

  mgw_status status = MGW_INTERNAL;
  std::string error;
  std::thread writer([&] {
    status = insert(storage->get(),
                    {usage("a", lease.lease_id), usage("slow", lease.lease_id), usage("c", lease.lease_id)},
                    &error);
  });
  // Wait (bounded) until the batch sleeps inside its transaction.
  std::string pid;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (pid.empty() && std::chrono::steady_clock::now() < deadline) {
    pid = db().admin().text("SELECT pid FROM pg_stat_activity WHERE application_name = " +
                            quote_literal(db().schema()) + " AND wait_event = 'PgSleep'");
    if (pid.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // A retry (if the plugin makes one) must not sleep again.
  db().admin().exec("DELETE FROM " + hold);
  if (!pid.empty()) db().admin().exec("SELECT pg_terminate_backend(" + pid + ")");
  writer.join();
  ASSERT_FALSE(pid.empty()) << "the batch never reached its trigger";

  // Either the whole batch was stored once (the plugin retried it on a new
  // connection) or none of it was (UNAVAILABLE): never only "a".
  EXPECT_THAT(status, AnyOf(MGW_OK, MGW_UNAVAILABLE)) << error;
  const auto ids = stored(storage->get());
  if (status == MGW_OK) {
    EXPECT_EQ(ids, (std::multiset<std::string>{"a", "c", "slow"}));
    EXPECT_EQ(spent(storage->get(), "budget:kill"), 21);
  } else {
    EXPECT_THAT(ids, IsEmpty()) << "half a batch was committed";
    EXPECT_EQ(spent(storage->get(), "budget:kill"), 0) << "charges of a failed batch were settled";
    // Sent again (as the host replays its journal), it is stored once.
    EXPECT_EQ(insert(storage->get(),
                     {usage("a", lease.lease_id), usage("slow", lease.lease_id), usage("c", lease.lease_id)},
                     &error),
              MGW_OK)
        << error;
    EXPECT_EQ(stored(storage->get()), (std::multiset<std::string>{"a", "c", "slow"}));
    EXPECT_EQ(spent(storage->get(), "budget:kill"), 21);
  }
  // And the next call works.
  EXPECT_EQ(insert(storage->get(), {usage("next")}, &error), MGW_OK) << error;
}

}  // namespace
}  // namespace storage_test
