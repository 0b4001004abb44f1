// Issue 24 (6, 12), from the outside: a gateway with an audit key and its
// checkpoint lines in its own log, then its SQLite file edited by hand.
// `modelgw audit verify` names a tail cut off together with its newest
// checkpoint row given the log (--anchor), an event appended with a
// recomputed hash given the key, an event inserted in the middle as
// "inserted" and a real reorder as "reordered"; an untouched log is intact
// with and without either.
#include "harness/checks.h"
#include "harness/stack.h"

#include <Poco/DigestEngine.h>
#include <Poco/SHA2Engine.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace it {
namespace {

// Runs SQL on the store's file, as someone with write access to it would.
void tamper_db(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  const std::string why = err != nullptr ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << why;
}

// The first row of `sql`, as text columns.
std::vector<std::string> first_row(const std::string& path, const std::string& sql) {
  std::vector<std::string> row;
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      for (int i = 0; i < sqlite3_column_count(st); ++i) {
        const auto* text = sqlite3_column_text(st, i);
        row.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "");
      }
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return row;
}

// What a forger does with the public algorithm: the SHA-256 of the event's
// canonical form (a JSON array of every field but id and hash).
std::string recomputed_hash(std::int64_t tenant, std::int64_t seq, std::int64_t created,
                            const std::string& prev) {
  const json form = {tenant, seq, created, "cli", "key.create", "key 99", "", "{}", prev};
  Poco::SHA2Engine sha(Poco::SHA2Engine::SHA_256);
  sha.update(form.dump());
  return Poco::DigestEngine::digestToHex(sha.digest());
}

// An event in tenant `tenant`'s chain at `seq`, linked after `prev`.
std::string forged_insert(std::int64_t tenant, std::int64_t seq, const std::string& prev) {
  const std::int64_t created = 1764115200000;
  return "INSERT INTO audit_events (tenant_id, seq, created_unix_ms, actor, action, target, request_id, "
         "details_json, prev_hash, hash) VALUES (" +
         std::to_string(tenant) + ", " + std::to_string(seq) + ", " + std::to_string(created) +
         ", 'cli', 'key.create', 'key 99', '', '{}', '" + prev + "', '" +
         recomputed_hash(tenant, seq, created, prev) + "')";
}

class AuditAnchorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = std::filesystem::temp_directory_path() / ("mgw-audit-anchor-" + std::to_string(::getpid()));
    std::filesystem::create_directories(scratch_);
    key_file_ = (scratch_ / "audit.key").string();
    std::ofstream(key_file_) << "3f1c9a7e5b2d8f4a6c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a\n";
    std::filesystem::permissions(key_file_,
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(scratch_, ec);
  }

  std::filesystem::path scratch_;
  std::string key_file_;
};

TEST_F(AuditAnchorTest, AnchorsAndTheKeyNameTruncationForgeryInsertionAndReorder) {
  GatewayOptions o;
  // One checkpoint, at the clean stop: nothing else in the store sees the tail.
  o.extra_yaml =
      "audit:\n  flush_interval_ms: 20\n  checkpoint_interval_ms: 3600000\n  hmac_key_file: " + key_file_ +
      "\n";
  auto stack = start_stack(o);
  auto& gw = *stack->gateway;
  gw.create_tenant("ops");
  const auto admin = gw.create_key("ops", "admin");
  // Changes through the gateway, so its checkpoints (and their log lines) cover them.
  for (const char* t : {"cut", "forged", "inserted", "reordered"}) {
    gw.create_tenant(t);
    for (int i = 0; i < 5; ++i) {
      HttpRequest r;
      r.method = "PATCH";
      r.path = std::string("/internal/v1/tenants/") + t + "/settings";
      r.body = json{{"rate_limits", {{"tenant_requests_per_minute", 100 + i}}}}.dump();
      r.headers = {{"Authorization", "Bearer " + admin.key}};
      ASSERT_EQ(http_call(stack->port(), r).status, 200);
    }
  }
  ASSERT_EQ(gw.stop(), 0);  // a clean stop checkpoints, and logs the checkpoint
  const std::string db = gw.db_path();
  const std::string log = gw.log_path();
  ASSERT_NE(gw.log().find("\"audit_checkpoint\":[[0,"), std::string::npos) << gw.log();
  EXPECT_EQ(gw.log().find("3f1c9a7e5b2d8f4a"), std::string::npos) << "the key is in the log";
  const auto id = [&](const char* name) {
    return std::stoll(first_row(db, std::string("SELECT id FROM tenants WHERE name = '") + name + "'").at(0));
  };

  // Untouched: intact with the configured key, with the log, with --key.
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"audit", "verify"},
                                             {"audit", "verify", "--anchor", log},
                                             {"audit", "verify", "--anchor", log, "--key", key_file_}}) {
    const auto r = gw.cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("audit log intact"), std::string::npos) << r.out;
  }
  // And without the key (a configuration that does not name it).
  const std::string keyless = (scratch_ / "keyless.yaml").string();
  {
    std::string text = gw.config_text();
    text.erase(text.find("  hmac_key_file:"), std::string("  hmac_key_file: ").size() + key_file_.size() + 1);
    std::ofstream(keyless) << text;
  }
  const auto verify_keyless = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--config", keyless});
    return run_to_exit(MODELGW_BIN, args, gateway_env(), std::chrono::seconds(30));
  };
  {
    const auto r = verify_keyless({"audit", "verify"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(r.out.find("MACs"), std::string::npos) << r.out;
  }

  // Finding 6: the 3 newest events of a tenant and the newest checkpoint row.
  const std::int64_t cut = id("cut");
  const auto newest =
      first_row(db, "SELECT MAX(seq) FROM audit_events WHERE tenant_id = " + std::to_string(cut));
  tamper_db(db, "DELETE FROM audit_events WHERE tenant_id = " + std::to_string(cut) + " AND seq > " +
                    std::to_string(std::stoll(newest.at(0)) - 3) +
                    "; DELETE FROM audit_events WHERE tenant_id = 0 AND seq = (SELECT MAX(seq) FROM "
                    "audit_events WHERE tenant_id = 0 AND action = 'audit.checkpoint')");
  {
    const auto r = gw.cli({"audit", "verify", "--tenant", "cut"});
    EXPECT_EQ(r.exit_code, 0) << "nothing in the store saw the tail: " << r.out;
    const auto anchored = gw.cli({"audit", "verify", "--anchor", log});
    EXPECT_EQ(anchored.exit_code, 1) << anchored.out << anchored.err;
    EXPECT_NE(anchored.out.find("tenant cut (id " + std::to_string(cut) + "): truncated at seq " +
                                std::to_string(std::stoll(newest.at(0)) - 2)),
              std::string::npos)
        << anchored.out;
    EXPECT_NE(anchored.out.find("tenant (gateway) (id 0): truncated at seq"), std::string::npos)
        << anchored.out;
  }

  // Finding 6: one event appended with the right prev_hash and a recomputed hash.
  const std::int64_t forged = id("forged");
  const auto head =
      first_row(db, "SELECT seq, hash FROM audit_events WHERE tenant_id = " + std::to_string(forged) +
                        " ORDER BY seq DESC LIMIT 1");
  const std::int64_t forged_seq = std::stoll(head.at(0)) + 1;
  tamper_db(db, forged_insert(forged, forged_seq, head.at(1)));
  {
    const auto r = verify_keyless({"audit", "verify", "--tenant", "forged"});
    EXPECT_EQ(r.exit_code, 0) << "without the key a recomputed hash passes: " << r.out;
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"audit", "verify", "--tenant", "forged"},
             {"audit", "verify", "--tenant", "forged", "--key", key_file_}}) {
      const auto keyed = gw.cli(args);
      EXPECT_EQ(keyed.exit_code, 1) << keyed.out << keyed.err;
      EXPECT_NE(keyed.out.find("tenant forged (id " + std::to_string(forged) + "): forged at seq " +
                               std::to_string(forged_seq)),
                std::string::npos)
          << keyed.out;
    }
  }

  // Finding 12: an event inserted in the middle, linked and hashed as the
  // writer would have, the later events moved up one.
  const std::int64_t inserted = id("inserted");
  const std::string in = std::to_string(inserted);
  const auto second = first_row(db, "SELECT hash FROM audit_events WHERE tenant_id = " + in + " AND seq = 2");
  tamper_db(db, "UPDATE audit_events SET seq = -seq WHERE tenant_id = " + in +
                    " AND seq >= 3; UPDATE audit_events SET seq = 1 - seq WHERE tenant_id = " + in +
                    " AND seq < 0; " + forged_insert(inserted, 3, second.at(0)));
  // And a real reorder: two neighbours swapped.
  const std::string re = std::to_string(id("reordered"));
  tamper_db(db, "UPDATE audit_events SET seq = 100 WHERE tenant_id = " + re +
                    " AND seq = 2; UPDATE audit_events SET seq = 2 WHERE tenant_id = " + re +
                    " AND seq = 3; UPDATE audit_events SET seq = 3 WHERE tenant_id = " + re +
                    " AND seq = 100;");
  for (const bool with_key : {false, true}) {
    const auto r = with_key ? gw.cli({"audit", "verify"}) : verify_keyless({"audit", "verify"});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("tenant inserted (id " + in + "): inserted at seq 3"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("tenant reordered (id " + re + "): reordered at seq 2"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace it
