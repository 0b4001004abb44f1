// The audit log, against the real SQLite store: events linked into one hash
// chain per tenant, a second writer on the same store relinking after a
// conflict, checkpoints of the heads, rejected credentials counted per source
// and minute, the first budget exhaustion per window only, keyset outages per
// change of state; and verification naming the first event edited, removed,
// inserted or reordered, or a tail truncated behind a checkpoint. Also the
// strict query of GET /v1/audit.
#include "audit/audit_log.h"
#include "audit/audit_chain.h"
#include "audit/audit_query.h"
#include "audit/audit_verify.h"
#include "audit/pii_events.h"
#include "storage_fixture.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace modelgw::audit {
namespace {

using plugins::AuditRow;

class AuditLogTest : public ::testing::Test {
 protected:
  static std::int64_t clock() { return now_.load(); }

  std::unique_ptr<AuditLog> writer() {
    return std::make_unique<AuditLog>(*db_.storage, AuditOptions{}, &AuditLogTest::clock);
  }
  // A tenant's whole chain, oldest first, page by page.
  std::vector<AuditRow> chain(std::int64_t tenant) {
    plugins::AuditFilter f;
    f.tenant_id = tenant;
    f.ascending = true;
    f.limit = 1000;
    std::vector<AuditRow> all;
    for (int pages = 0; pages < 100; ++pages) {
      auto page = db_.storage->audit_page(f);
      all.insert(all.end(), page.begin(), page.end());
      if (page.size() < 1000) break;
      f.after_seq = page.back().seq;
    }
    return all;
  }
  // Runs SQL on the store's file, as someone with the database would.
  void tamper(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((db_.dir / "t.db").string().c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    const std::string why = err != nullptr ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << why;
  }
  std::optional<ChainFault> fault_of(std::int64_t tenant) {
    for (const auto& r : verify_chains(*db_.storage, tenant)) {
      if (r.tenant_id == tenant) return r.fault;
    }
    ADD_FAILURE() << "no report for tenant " << tenant;
    return std::nullopt;
  }
  // Five admin events in tenant 7's chain, and a checkpoint of its head.
  void five_events() {
    auto log = writer();
    for (int i = 1; i <= 5; ++i)
      log->record(Event{7, "cli", "tenant.settings", "change " + std::to_string(i), "", {}});
    ASSERT_TRUE(log->flush());
    log->stop();  // a clean stop checkpoints the heads
  }

  modelgw::testing::TempStorage db_;
  static inline std::atomic<std::int64_t> now_{1'764'115'200'000};
};

TEST_F(AuditLogTest, EventsAreLinkedIntoOneChainPerTenant) {
  auto log = writer();
  log->record(
      Event{1, "key 3 (tenant a)", "pii.blocked", "request r1", "req_1", {{"findings", {{"ssn", 1}}}}});
  log->record(Event{2, "cli", "tenant.create", "tenant b", "", {}});
  log->record(Event{1, "cli", "key.revoke", "key 3", "", {}});
  ASSERT_TRUE(log->flush());
  EXPECT_EQ(log->status().written, 3);
  const auto a = chain(1);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].seq, 1);
  EXPECT_EQ(a[0].prev_hash, kGenesisHash);
  EXPECT_EQ(a[0].hash, event_hash(a[0]));
  EXPECT_EQ(a[1].seq, 2);
  EXPECT_EQ(a[1].prev_hash, a[0].hash);
  EXPECT_EQ(a[0].request_id, "req_1");
  EXPECT_EQ(a[0].details_json, R"({"findings":{"ssn":1}})");
  EXPECT_EQ(chain(2).size(), 1u);
  for (const auto& r : verify_chains(*db_.storage, std::nullopt)) EXPECT_FALSE(r.fault) << r.fault->detail;
}

TEST_F(AuditLogTest, TwoWritersOnOneStoreRelinkAfterAConflict) {
  auto first = writer();
  auto second = writer();
  first->record(Event{1, "cli", "a", "1", "", {}});
  ASSERT_TRUE(first->flush());
  second->record(Event{1, "cli", "b", "2", "", {}});  // reads the head: seq 1
  ASSERT_TRUE(second->flush());
  first->record(Event{1, "cli", "c", "3", "", {}});  // its head is stale (seq 1): conflict, then relinks
  ASSERT_TRUE(first->flush());
  const auto c = chain(1);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[2].action, "c");
  EXPECT_EQ(c[2].prev_hash, c[1].hash);
  EXPECT_FALSE(fault_of(1));
}

TEST_F(AuditLogTest, RejectedCredentialsAreOneEventPerSourceAndMinute) {
  auto log = writer();
  for (int i = 0; i < 1000; ++i) log->rejected_credential("10.0.0.1");
  log->rejected_credential("10.0.0.2");
  ASSERT_TRUE(log->flush());
  EXPECT_TRUE(chain(0).empty()) << "the minute is not over";
  now_ += 60'000;
  ASSERT_TRUE(log->flush());
  const auto c = chain(0);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].action, "auth.rejected");
  EXPECT_EQ(c[0].target, "source 10.0.0.1");
  EXPECT_EQ(nlohmann::json::parse(c[0].details_json)["count"], 1000);
  EXPECT_EQ(nlohmann::json::parse(c[1].details_json)["count"], 1);
}

// The writer rests until its next checkpoint when it has nothing to write;
// an event, or a count whose minute then ends, wakes it: each is written
// within about the flush interval, not a checkpoint interval later.
TEST_F(AuditLogTest, AnEventOrACountAfterARestIsWrittenWithoutWaitingForTheCheckpoint) {
  AuditOptions options;
  options.flush_interval = std::chrono::milliseconds(20);
  options.checkpoint_interval = std::chrono::hours(1);
  AuditLog log(*db_.storage, options, &AuditLogTest::clock);
  log.start();
  const auto written_within = [&](std::int64_t n) {
    for (int polls = 0; polls < 200; ++polls) {  // 2 s at most
      if (log.status().written >= n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  };
  for (int i = 1; i <= 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the writer rests
    log.record(Event{7, "cli", "tenant.settings", "change " + std::to_string(i), "", {}});
    ASSERT_TRUE(written_within(i)) << "event " << i << " waits after a rest";
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  log.rejected_credential("10.0.0.9");
  now_ += 60'000;  // its minute ends
  ASSERT_TRUE(written_within(4)) << "the count waits after a rest";
  log.stop();
  const auto c = chain(0);
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c[0].action, "auth.rejected");
}

TEST_F(AuditLogTest, AFloodFromManySourcesIsCountedWithinABound) {
  auto log = writer();
  const std::size_t sources = AuditLog::kMaxSourcesPerMinute + 5;
  for (std::size_t i = 0; i < sources; ++i) log->rejected_credential("10.1." + std::to_string(i));
  log->rejected_credential("10.1.0");  // a source already counted keeps its own count
  now_ += 60'000;
  ASSERT_TRUE(log->flush());
  const auto c = chain(0);
  ASSERT_EQ(c.size(), AuditLog::kMaxSourcesPerMinute + 1);
  std::int64_t others = 0, first = 0;
  for (const auto& e : c) {
    if (e.target == "source (other sources)") others = nlohmann::json::parse(e.details_json)["count"];
    if (e.target == "source 10.1.0") first = nlohmann::json::parse(e.details_json)["count"];
  }
  EXPECT_EQ(others, 5);
  EXPECT_EQ(first, 2);
}

TEST_F(AuditLogTest, OnlyTheFirstExhaustionPerWindowAndOnlyKeysetChangesAreEvents) {
  auto log = writer();
  for (int i = 0; i < 5; ++i)
    log->budget_exhausted(3, "budget:9", 1764115200000, "req_" + std::to_string(i), "key 1");
  log->budget_exhausted(3, "budget:9", 1764201600000, "req_next_day", "key 1");
  log->budget_exhausted(3, "budget:9", 1764115200000, "req_late", "key 1");  // an older window: not news
  log->keyset_state(true, "r0");  // the first success of a run is not news
  log->keyset_state(false, "r1");
  log->keyset_state(false, "r2");
  log->keyset_state(true, "r3");
  log->keyset_state(true, "r4");
  ASSERT_TRUE(log->flush());
  const auto budget = chain(3);
  ASSERT_EQ(budget.size(), 2u);
  EXPECT_EQ(budget[0].action, "budget.exhausted");
  EXPECT_EQ(budget[0].target, "budget:9");
  EXPECT_EQ(budget[0].request_id, "req_0");
  EXPECT_EQ(budget[1].request_id, "req_next_day");
  const auto keyset = chain(0);
  ASSERT_EQ(keyset.size(), 2u);
  EXPECT_EQ(keyset[0].action, "keyset.unavailable");
  EXPECT_EQ(keyset[0].request_id, "r1");
  EXPECT_EQ(keyset[1].action, "keyset.recovered");
}

TEST_F(AuditLogTest, AStopCheckpointsTheHeadsAndVerifyPassesAnIntactLog) {
  five_events();
  const auto own = chain(0);
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].action, "audit.checkpoint");
  const auto heads = nlohmann::json::parse(own[0].details_json)["heads"];
  ASSERT_EQ(heads.size(), 1u);
  EXPECT_EQ(heads[0][0], 7);
  EXPECT_EQ(heads[0][1], 5);
  EXPECT_EQ(heads[0][2], chain(7).back().hash);
  EXPECT_FALSE(fault_of(7));
}

TEST_F(AuditLogTest, VerifyNamesAnEditedEvent) {
  five_events();
  tamper("UPDATE audit_events SET target = 'nothing to see' WHERE tenant_id = 7 AND seq = 3");
  const auto f = fault_of(7);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "edited");
  EXPECT_EQ(f->seq, 3);
}

TEST_F(AuditLogTest, VerifyNamesARemovedEvent) {
  five_events();
  tamper("DELETE FROM audit_events WHERE tenant_id = 7 AND seq = 2");
  const auto f = fault_of(7);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "removed");
  EXPECT_EQ(f->seq, 2);
}

TEST_F(AuditLogTest, VerifyNamesACutOffTailThroughTheCheckpoint) {
  five_events();
  tamper("DELETE FROM audit_events WHERE tenant_id = 7 AND seq >= 4");
  const auto f = fault_of(7);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "truncated");
  EXPECT_EQ(f->seq, 4);
  EXPECT_NE(f->detail.find("cut off"), std::string::npos) << f->detail;
}

TEST_F(AuditLogTest, VerifyNamesAnInsertedEvent) {
  five_events();
  // In the middle: the later events moved up one to make room.
  tamper(
      "UPDATE audit_events SET seq = -seq WHERE tenant_id = 7 AND seq >= 3;"
      "UPDATE audit_events SET seq = 1 - seq WHERE tenant_id = 7 AND seq < 0;"
      "INSERT INTO audit_events (tenant_id, seq, created_unix_ms, actor, action, target, request_id, "
      "details_json, prev_hash, hash) VALUES (7, 3, 1764115200000, 'cli', 'key.create', 'key 99', '', '{}', "
      "'forged', 'forged')");
  const auto f = fault_of(7);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "inserted");
  EXPECT_EQ(f->seq, 3);
}

TEST_F(AuditLogTest, VerifyNamesAnInsertedEventWithAForgedButConsistentHash) {
  five_events();
  // The forger knows the algorithm: the inserted event hashes and links
  // correctly; it is found because it was stored after its successor.
  auto c = chain(7);
  tamper("DELETE FROM audit_events WHERE tenant_id = 7 AND seq >= 3");
  AuditRow forged;
  forged.tenant_id = 7;
  forged.created_unix_ms = c[1].created_unix_ms;
  forged.actor = "cli";
  forged.action = "key.create";
  forged.target = "key 99";
  link(forged, 2, c[1].hash);
  std::vector<AuditRow> rest;
  AuditRow prev = forged;
  for (std::size_t i = 2; i < c.size(); ++i) {
    AuditRow e = c[i];
    link(e, prev.seq, prev.hash);
    rest.push_back(e);
    prev = e;
  }
  // The rest first (lower ids), then the forged one in the gap it left.
  ASSERT_TRUE(db_.storage->append_audit(rest));
  ASSERT_TRUE(db_.storage->append_audit({forged}));
  const auto f = fault_of(7);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "inserted");
  EXPECT_EQ(f->seq, 3);
}

TEST_F(AuditLogTest, VerifyNamesReorderedEvents) {
  five_events();
  tamper(
      "UPDATE audit_events SET seq = 100 WHERE tenant_id = 7 AND seq = 2;"
      "UPDATE audit_events SET seq = 2 WHERE tenant_id = 7 AND seq = 4;"
      "UPDATE audit_events SET seq = 4 WHERE tenant_id = 7 AND seq = 100;");
  const auto f = fault_of(7);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "reordered");
  EXPECT_EQ(f->seq, 2);
  EXPECT_NE(f->detail.find("written as seq 4"), std::string::npos) << f->detail;
}

TEST_F(AuditLogTest, AnEditedCheckpointIsNotTrustedAndIsReported) {
  five_events();
  tamper("UPDATE audit_events SET details_json = '{\"heads\":[]}' WHERE tenant_id = 0");
  const auto reports = verify_chains(*db_.storage, std::nullopt);
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports[0].tenant_id, 0);
  ASSERT_TRUE(reports[0].fault);
  EXPECT_EQ(reports[0].fault->kind, "edited");
}

TEST(AuditQuery, ParametersAreCheckedStrictly) {
  auto ok =
      parse_audit_query("from=2026-11-24T00:00:00Z&to=1795651200&action=key.revoke&actor=cli&limit=5", false);
  ASSERT_TRUE(std::holds_alternative<AuditRequest>(ok));
  EXPECT_EQ(std::get<AuditRequest>(ok).filter.limit, 5);
  EXPECT_EQ(std::get<AuditRequest>(ok).filter.action, "key.revoke");
  for (const char* bad :
       {"from=2026-11-25T00:00:00Z&to=2026-11-24T00:00:00Z", "limit=0", "limit=1001", "limit=x",
        "tenant=acme", "action=", "from=yesterday", "limit=1&limit=2", "colour=blue"}) {
    auto r = parse_audit_query(bad, false);
    ASSERT_TRUE(std::holds_alternative<errors::ApiError>(r)) << bad;
    EXPECT_EQ(std::get<errors::ApiError>(r).status, 400) << bad;
  }
  EXPECT_TRUE(std::holds_alternative<AuditRequest>(parse_audit_query("tenant=acme", true)));
}

TEST_F(AuditLogTest, PagesAreNewestFirstWithACursorBoundToItsFilter) {
  auto log = writer();
  for (int i = 0; i < 7; ++i)
    log->record(Event{4, i % 2 ? "cli" : "key 1 (tenant d)", "x", std::to_string(i), "", {}});
  ASSERT_TRUE(log->flush());
  AuditRequest request;
  request.filter.tenant_id = 4;
  request.filter.limit = 3;
  auto page = answer_audit_query(request, *db_.storage);
  ASSERT_FALSE(page.error);
  auto body = nlohmann::json::parse(page.body);
  ASSERT_EQ(body["data"].size(), 3u);
  EXPECT_EQ(body["data"][0]["seq"], 7);
  EXPECT_TRUE(body["has_more"]);
  request.cursor = body["next_cursor"];
  body = nlohmann::json::parse(answer_audit_query(request, *db_.storage).body);
  EXPECT_EQ(body["data"][0]["seq"], 4);
  // The cursor with another filter, or edited: 400.
  request.filter.actor = "cli";
  auto wrong = answer_audit_query(request, *db_.storage);
  ASSERT_TRUE(wrong.error);
  EXPECT_EQ(wrong.error->param, "cursor");
  request.filter.actor.clear();
  request.cursor = "bm90LWEtY3Vyc29y";
  EXPECT_TRUE(answer_audit_query(request, *db_.storage).error);
}

}  // namespace
}  // namespace modelgw::audit

namespace modelgw::audit {
namespace {

// A tenant cannot grow its audit chain faster than a few PII events a
// minute: the first ones are events of their own, the rest one count.
TEST_F(AuditLogTest, PiiEventsPastAFewAMinuteAreCountedIntoOne) {
  auto log = writer();
  for (int i = 0; i < 1000; ++i) {
    const std::string id = "req_" + std::to_string(i);
    record_pii_event(log.get(), PiiEvent{"pii.blocked", id, 9, 3, "key 3", "messages[0].content",
                                         R"({"email":1,"payment_card":2})"});
  }
  ASSERT_TRUE(log->flush());
  EXPECT_EQ(chain(9).size(), static_cast<std::size_t>(AuditLog::kPiiEventsPerMinute));
  now_ += 60'000;
  ASSERT_TRUE(log->flush());
  const auto c = chain(9);
  ASSERT_EQ(c.size(), static_cast<std::size_t>(AuditLog::kPiiEventsPerMinute) + 1);
  const auto counted = nlohmann::json::parse(c.back().details_json);
  EXPECT_EQ(c.back().action, "pii.blocked");
  EXPECT_EQ(counted["count"], 1000 - AuditLog::kPiiEventsPerMinute);
  EXPECT_EQ(counted["findings"]["payment_card"], 2 * (1000 - AuditLog::kPiiEventsPerMinute));
  EXPECT_EQ(counted["aggregated"], true);
  EXPECT_EQ(c.back().details_json.find("req_"), std::string::npos) << "no request is named in the count";
}

}  // namespace
}  // namespace modelgw::audit

namespace modelgw::audit {
namespace {

// Past audit.queue_limit while the store refuses events, they go to the
// journal, not away: once the store answers every one is appended, in the
// order it happened, and one an earlier run journaled is appended after a
// restart.
TEST_F(AuditLogTest, EventsPastTheQueueLimitWaitInTheJournalAndNoneIsDropped) {
  AuditOptions options;
  options.queue_limit = 10;
  options.journal_path = (db_.dir / "audit.journal").string();
  {
    AuditLog log(*db_.storage, options, &AuditLogTest::clock);
    tamper("ALTER TABLE audit_events RENAME TO audit_events_away");
    for (int i = 0; i < 35; ++i) {
      log.record(Event{7, "cli", "tenant.settings", "change " + std::to_string(i), "", {}});
      if (i % 10 == 9) {
        EXPECT_FALSE(log.flush()) << "the store is away";
      }
    }
    EXPECT_FALSE(log.flush());
    EXPECT_EQ(log.status().dropped, 0);
    EXPECT_LE(log.status().queued, 10u) << "the rest waits in the journal, not in memory";
    EXPECT_TRUE(log.recording());
  }  // the process ends with events journaled
  tamper("ALTER TABLE audit_events_away RENAME TO audit_events");
  AuditLog restarted(*db_.storage, options, &AuditLogTest::clock);
  restarted.record(Event{7, "cli", "tenant.settings", "change 35", "", {}});
  ASSERT_TRUE(restarted.flush());
  const auto c = chain(7);
  ASSERT_GE(c.size(), 26u) << "the journaled events were appended";
  // In order, whatever reached the store: each change once, ascending.
  int last = -1;
  for (const auto& row : c) {
    const int n = std::stoi(row.target.substr(std::string("change ").size()));
    EXPECT_GT(n, last) << "out of order at seq " << row.seq;
    last = n;
  }
  EXPECT_EQ(last, 35);
}

}  // namespace
}  // namespace modelgw::audit
