// modelgw audit verify's verdicts beyond the chain itself, against the real
// SQLite store: each kind of tampering named precisely (an event inserted in
// the middle is "inserted", not "reordered"; events removed and the rest
// renumbered are "removed"); a tail cut off together with its checkpoint is
// "truncated" given the process log's anchors (the writer's own log lines,
// read back); an event appended with a recomputed hash is "forged" given the
// audit key. Also the key itself.
#include "audit/audit_verify.h"
#include "audit/audit_anchors.h"
#include "audit/audit_key.h"
#include "audit/audit_log.h"
#include "logging/log_line.h"
#include "storage_fixture.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace modelgw::audit {
namespace {

using plugins::AuditRow;

std::int64_t verify_clock() {
  return 1'764'115'200'000;
}

// The process log, in memory and in the gateway's line format, while a test runs.
class CapturedLog {
 public:
  explicit CapturedLog(logging::Format format) : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(lines_);
    sink->set_formatter(std::make_unique<logging::LineFormatter>(format));
    auto logger = std::make_shared<spdlog::logger>("captured", sink);
    logger->set_level(spdlog::level::info);
    spdlog::set_default_logger(logger);
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  std::string text() const { return lines_.str(); }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream lines_;
};

class AuditTamperTest : public ::testing::Test {
 protected:
  std::unique_ptr<AuditLog> writer(std::shared_ptr<const AuditKey> key = nullptr) {
    AuditOptions options;
    options.key = std::move(key);
    return std::make_unique<AuditLog>(*db_.storage, options, &verify_clock);
  }
  // Five events in tenant 7's chain, then a clean stop (a checkpoint).
  void five_events(std::shared_ptr<const AuditKey> key = nullptr) {
    auto log = writer(std::move(key));
    for (int i = 1; i <= 5; ++i)
      log->record(Event{7, "cli", "tenant.settings", "change " + std::to_string(i), "", {}});
    ASSERT_TRUE(log->flush());
    log->stop();
  }
  std::vector<AuditRow> chain(std::int64_t tenant) {
    plugins::AuditFilter f;
    f.tenant_id = tenant;
    f.ascending = true;
    f.limit = 1000;
    return db_.storage->audit_page(f);
  }
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
  std::optional<ChainFault> fault_of(std::int64_t tenant, const AnchorSet* anchors = nullptr,
                                     const AuditKey* key = nullptr) {
    for (const auto& r : verify_chains(*db_.storage, VerifyOptions{std::nullopt, anchors, key})) {
      if (r.tenant_id == tenant) return r.fault;
    }
    ADD_FAILURE() << "no report for tenant " << tenant;
    return std::nullopt;
  }
  // An event someone with the store but not the key appends: linked after
  // the chain's head, with its hash recomputed as the public algorithm says.
  AuditRow forged_after(const AuditRow& head) {
    AuditRow forged;
    forged.tenant_id = head.tenant_id;
    forged.created_unix_ms = head.created_unix_ms;
    forged.actor = "cli";
    forged.action = "key.create";
    forged.target = "key 99";
    link(forged, head.seq, head.hash);
    return forged;
  }

  modelgw::testing::TempStorage db_;
};

TEST_F(AuditTamperTest, AnEventInsertedInTheMiddleWithARecomputedHashIsInsertedNotReordered) {
  five_events();
  const auto c = chain(7);
  // Room at seq 3: the later events move up one; the new event links and
  // hashes as the writer would have.
  tamper(
      "UPDATE audit_events SET seq = -seq WHERE tenant_id = 7 AND seq >= 3;"
      "UPDATE audit_events SET seq = 1 - seq WHERE tenant_id = 7 AND seq < 0;");
  ASSERT_TRUE(db_.storage->append_audit({forged_after(c[1])}));
  const auto f = fault_of(7);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "inserted") << f->detail;
  EXPECT_EQ(f->seq, 3);
  EXPECT_NE(f->detail.find("now sits at seq 4"), std::string::npos) << f->detail;
}

TEST_F(AuditTamperTest, TwoEventsInsertedInTheMiddleAreNamedAsARange) {
  five_events();
  const auto c = chain(7);
  tamper(
      "UPDATE audit_events SET seq = -seq WHERE tenant_id = 7 AND seq >= 3;"
      "UPDATE audit_events SET seq = 2 - seq WHERE tenant_id = 7 AND seq < 0;");
  const AuditRow first = forged_after(c[1]);
  ASSERT_TRUE(db_.storage->append_audit({first, forged_after(first)}));
  const auto f = fault_of(7);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "inserted") << f->detail;
  EXPECT_EQ(f->seq, 3);
  EXPECT_NE(f->detail.find("events seq 3 to 4 were inserted"), std::string::npos) << f->detail;
}

TEST_F(AuditTamperTest, EventsRemovedAndTheRestRenumberedAreRemoved) {
  five_events();
  tamper(
      "DELETE FROM audit_events WHERE tenant_id = 7 AND seq = 3;"
      "UPDATE audit_events SET seq = seq - 1 WHERE tenant_id = 7 AND seq > 3;");
  const auto f = fault_of(7);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "removed") << f->detail;
  EXPECT_EQ(f->seq, 3);
  EXPECT_NE(f->detail.find("renumbered"), std::string::npos) << f->detail;
}

TEST_F(AuditTamperTest, SwappedNeighboursAreReordered) {
  five_events();
  tamper(
      "UPDATE audit_events SET seq = 100 WHERE tenant_id = 7 AND seq = 2;"
      "UPDATE audit_events SET seq = 2 WHERE tenant_id = 7 AND seq = 3;"
      "UPDATE audit_events SET seq = 3 WHERE tenant_id = 7 AND seq = 100;");
  const auto f = fault_of(7);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "reordered") << f->detail;
  EXPECT_EQ(f->seq, 2);
}

TEST_F(AuditTamperTest, TheWritersTextLogLinesAreAnchorsToo) {
  std::string log;
  {
    CapturedLog captured(logging::Format::text);
    five_events();
    log = captured.text();
  }
  std::istringstream lines(log);
  const AnchorSet anchors = read_anchors(lines);
  ASSERT_EQ(anchors.lines, 1u) << log;
  ASSERT_NE(anchors.of(7), nullptr);
  EXPECT_EQ(anchors.of(7)->back(), (Anchor{5, chain(7).back().hash}));
}

TEST_F(AuditTamperTest, TheWritersLogLinesAnchorATailCutOffWithItsCheckpoint) {
  std::string log;
  {
    CapturedLog captured(logging::Format::json);
    five_events();
    log = captured.text();
  }
  std::istringstream lines(log);
  const AnchorSet anchors = read_anchors(lines);
  ASSERT_EQ(anchors.lines, 1u) << log;
  ASSERT_NE(anchors.of(0), nullptr);
  ASSERT_NE(anchors.of(7), nullptr);
  EXPECT_EQ(anchors.of(7)->back(), (Anchor{5, chain(7).back().hash}));
  EXPECT_EQ(anchors.of(0)->back(), (Anchor{1, chain(0).back().hash}))
      << "chain 0's head: the checkpoint itself";
  EXPECT_FALSE(fault_of(7, &anchors));
  EXPECT_FALSE(fault_of(0, &anchors));

  // The three newest events and the checkpoint that saw them.
  tamper(
      "DELETE FROM audit_events WHERE tenant_id = 7 AND seq >= 3; DELETE FROM audit_events WHERE tenant_id = "
      "0");
  EXPECT_FALSE(fault_of(7)) << "without anchors nothing shows: the store holds nothing that saw the tail";
  const auto f = fault_of(7, &anchors);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "truncated") << f->detail;
  EXPECT_EQ(f->seq, 3);
  const auto own = fault_of(0, &anchors);
  ASSERT_TRUE(own);
  EXPECT_EQ(own->kind, "truncated") << own->detail;
  EXPECT_EQ(own->seq, 1);
}

TEST_F(AuditTamperTest, AChainRebuiltWithRecomputedHashesDiffersFromItsAnchor) {
  five_events();
  const auto c = chain(7);
  AnchorSet anchors;
  anchors.chains[7] = {Anchor{5, c[4].hash}};
  // Everything from seq 3 on replaced by consistent forgeries.
  tamper(
      "DELETE FROM audit_events WHERE tenant_id = 7 AND seq >= 3; DELETE FROM audit_events WHERE tenant_id = "
      "0");
  std::vector<AuditRow> rest{forged_after(c[1])};
  for (int i = 0; i < 3; ++i) rest.push_back(forged_after(rest.back()));
  ASSERT_TRUE(db_.storage->append_audit(rest));
  EXPECT_FALSE(fault_of(7));
  const auto f = fault_of(7, &anchors);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "rewritten") << f->detail;
  EXPECT_EQ(f->seq, 5);
}

TEST_F(AuditTamperTest, AnAppendedEventWithARecomputedHashIsForgedGivenTheKey) {
  const auto key = std::make_shared<const AuditKey>(AuditKey::from_bytes(std::string(32, 'k')));
  five_events(key);
  for (const auto& e : chain(7)) EXPECT_TRUE(key->verifies(e.hash, e.mac)) << e.seq;
  EXPECT_FALSE(fault_of(7, nullptr, key.get()));
  EXPECT_FALSE(fault_of(0, nullptr, key.get()));

  ASSERT_TRUE(db_.storage->append_audit({forged_after(chain(7).back())}));
  EXPECT_FALSE(fault_of(7)) << "without the key a recomputed hash cannot be told apart";
  const auto f = fault_of(7, nullptr, key.get());
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "forged") << f->detail;
  EXPECT_EQ(f->seq, 6);
  // A MAC copied from another event, or made with another key, does not help.
  tamper(
      "UPDATE audit_events SET mac = (SELECT mac FROM audit_events WHERE tenant_id = 7 AND seq = 5) "
      "WHERE tenant_id = 7 AND seq = 6");
  const auto copied = fault_of(7, nullptr, key.get());
  ASSERT_TRUE(copied);
  EXPECT_EQ(copied->kind, "forged");
  EXPECT_EQ(copied->seq, 6);
  const auto other = AuditKey::from_bytes(std::string(32, 'o'));
  EXPECT_EQ(fault_of(7, nullptr, &other)->kind, "forged");
}

TEST_F(AuditTamperTest, EventsBeforeTheKeyAreVouchedForByTheFirstMacAfterThem) {
  const auto key = std::make_shared<const AuditKey>(AuditKey::from_bytes(std::string(40, 'k')));
  five_events();  // no key yet
  const auto unkeyed = fault_of(7, nullptr, key.get());
  ASSERT_TRUE(unkeyed);
  EXPECT_EQ(unkeyed->kind, "unkeyed");
  five_events(key);  // the key is configured: events 6-10 carry MACs
  EXPECT_FALSE(fault_of(7, nullptr, key.get()));
  // An event without a MAC between two with one: written without the key.
  tamper("UPDATE audit_events SET mac = '' WHERE tenant_id = 7 AND seq = 8");
  const auto f = fault_of(7, nullptr, key.get());
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "forged");
  EXPECT_EQ(f->seq, 8);
}

TEST_F(AuditTamperTest, StructuralNamesComeBeforeAMissingMac) {
  const auto key = std::make_shared<const AuditKey>(AuditKey::from_bytes(std::string(32, 'k')));
  five_events(key);
  const auto c = chain(7);
  tamper(
      "UPDATE audit_events SET seq = -seq WHERE tenant_id = 7 AND seq >= 3;"
      "UPDATE audit_events SET seq = 1 - seq WHERE tenant_id = 7 AND seq < 0;");
  ASSERT_TRUE(db_.storage->append_audit({forged_after(c[1])}));
  const auto f = fault_of(7, nullptr, key.get());
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "inserted") << f->detail;
  EXPECT_EQ(f->seq, 3);
}

TEST(AuditKeyFile, AShortOrMissingKeyIsRefusedWithoutShowingIt) {
  EXPECT_THROW(AuditKey::from_bytes("short secret"), AuditKeyError);
  try {
    AuditKey::load("/nonexistent/audit.key");
    FAIL() << "a missing file loaded";
  } catch (const AuditKeyError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/audit.key"), std::string::npos);
  }
  const auto dir = std::filesystem::temp_directory_path() / ("mgw-key-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "short") << "0123456789abcdef-not-enough\n";
    std::ofstream(dir / "good") << std::string(64, 'f') << "\n";
  }
  try {
    AuditKey::load((dir / "short").string());
    FAIL() << "a short key loaded";
  } catch (const AuditKeyError& e) {
    EXPECT_EQ(std::string(e.what()).find("not-enough"), std::string::npos) << "the error shows the key";
  }
  const auto key = AuditKey::load((dir / "good").string());
  const auto same = AuditKey::from_bytes(std::string(64, 'f'));  // the line end is not part of the key
  EXPECT_EQ(key.mac(std::string(64, '1')), same.mac(std::string(64, '1')));
  EXPECT_EQ(key.mac(std::string(64, '1')).size(), 64u);
  EXPECT_NE(key.mac(std::string(64, '1')), key.mac(std::string(64, '2')));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace modelgw::audit
