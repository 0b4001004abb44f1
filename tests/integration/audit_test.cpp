// The audit log from the outside: admin changes (internal API and CLI), a PII
// block, the first budget exhaustion of a window and rejected credentials
// become events, read back through GET /v1/audit (scope audit:read, filters,
// newest first, cursor paging) and /internal/v1/audit; none holds a secret or
// a PII value. Then `modelgw audit verify` against the gateway's database:
// intact, and edited by hand in each of the four ways.
#include "harness/checks.h"
#include "harness/stack.h"

#include <filesystem>

#include <sqlite3.h>

namespace it {
namespace {

using namespace std::chrono_literals;

constexpr const char* kCard = "4111 1111 1111 1111";  // a valid test card number (Luhn)

class AuditTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    try {
      GatewayOptions o;
      o.pii_yaml = "pii:\n  default_mode: block\n";
      o.extra_yaml = "audit:\n  flush_interval_ms: 20\n  checkpoint_interval_ms: 500\n";
      stack_ = start_stack(o);
      auto& gw = *stack_->gateway;
      gw.create_tenant("ops");
      admin_ = gw.create_key("ops", "admin");
      gw.create_tenant("audited");
      reader_ = gw.create_key("audited", "chat audit:read");
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }
  static void TearDownTestSuite() { stack_.reset(); }

 protected:
  void SetUp() override { ASSERT_NE(stack_, nullptr) << error_; }
  static Gateway& gw() { return *stack_->gateway; }
  static int port() { return stack_->port(); }

  static HttpResponse call(const std::string& method, const std::string& path, const std::string& key,
                           const json& body = nullptr) {
    HttpRequest r;
    r.method = method;
    r.path = path;
    r.body = body.is_null() ? "" : body.dump();
    r.headers = {{"Authorization", "Bearer " + key}};
    return http_call(port(), r);
  }
  // GET /v1/audit with `query`, once `count` events match it (bounded wait).
  static json audit(const std::string& key, const std::string& query, std::size_t count) {
    json page;
    eventually([&] {
      page = http_get(port(), "/v1/audit" + query, key).json();
      return page.contains("data") && page["data"].size() >= count;
    });
    return page;
  }

  static inline std::unique_ptr<Stack> stack_;
  static inline Gateway::Key admin_;
  static inline Gateway::Key reader_;
  static inline std::string error_;
};

TEST_F(AuditTest, AdminChangesAreEventsReadNewestFirstWithFiltersAndACursor) {
  const auto patched =
      call("PATCH", "/internal/v1/tenants/audited/settings", admin_.key, {{"pii", {{"mode", "flag"}}}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  ASSERT_EQ(gw().cli({"credits", "top-up", "--tenant", "audited", "--amount", "5.00"}).exit_code, 0);
  const json page = audit(reader_.key, "", 4);
  ASSERT_GE(page["data"].size(), 4u) << page.dump();
  const json& newest = page["data"][0];
  EXPECT_EQ(newest["action"], "credits.top_up");
  EXPECT_EQ(newest["actor"], "cli");
  EXPECT_EQ(newest["object"], "audit_event");
  EXPECT_TRUE(newest["request_id"].is_null());
  EXPECT_EQ(newest["hash"].get<std::string>().size(), 64u);
  const json& settings = page["data"][1];
  EXPECT_EQ(settings["action"], "tenant.settings");
  EXPECT_EQ(settings["actor"], "key " + std::to_string(admin_.id) + " (tenant ops)");
  EXPECT_EQ(settings["request_id"], patched.header("x-request-id"));
  EXPECT_EQ(settings["prev_hash"], page["data"][2]["hash"]);
  // The oldest: the tenant's creation and its key (by the CLI).
  const json all = audit(reader_.key, "?limit=1000", 4);
  EXPECT_EQ(all["data"].back()["action"], "tenant.create");
  for (const auto& e : all["data"]) {
    EXPECT_EQ(e.dump().find(reader_.key), std::string::npos) << "an event holds a key";
  }

  // The internal surface reads any tenant's chain.
  const json internal = call("GET", "/internal/v1/audit?tenant=audited&limit=1", admin_.key).json();
  ASSERT_EQ(internal["data"].size(), 1u) << internal.dump();
  EXPECT_EQ(internal["data"][0]["hash"], newest["hash"]);

  // Filters.
  const json by_actor = audit(reader_.key, "?actor=cli", 1);
  for (const auto& e : by_actor["data"]) EXPECT_EQ(e["actor"], "cli");
  const json by_action = audit(reader_.key, "?action=tenant.settings", 1);
  ASSERT_EQ(by_action["data"].size(), 1u);
  EXPECT_EQ(by_action["data"][0]["action"], "tenant.settings");
  EXPECT_EQ(audit(reader_.key, "?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z", 0)["data"].size(), 0u);

  // Pages of one, newest first, until the end.
  std::vector<std::int64_t> seqs;
  std::string cursor;
  for (int i = 0; i < 50; ++i) {
    const json p =
        http_get(port(), "/v1/audit?limit=1" + (cursor.empty() ? "" : "&cursor=" + cursor), reader_.key)
            .json();
    ASSERT_EQ(p["data"].size(), 1u) << p.dump();
    seqs.push_back(p["data"][0]["seq"]);
    if (!p["has_more"].get<bool>()) break;
    cursor = p["next_cursor"];
  }
  ASSERT_GE(seqs.size(), 4u);
  for (std::size_t i = 1; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], seqs[i - 1] - 1);
  EXPECT_EQ(seqs.back(), 1);
}

TEST_F(AuditTest, ReadyzShowsTheAuditWriter) {
  // A change through the gateway: appended before it is answered.
  ASSERT_EQ(
      call("PATCH", "/internal/v1/tenants/ops/settings", admin_.key, {{"pii", {{"mode", "flag"}}}}).status,
      200);
  const json ready = http_get(port(), "/readyz").json();
  ASSERT_TRUE(ready.contains("audit")) << ready.dump();
  EXPECT_EQ(ready["audit"]["state"], "storing");
  EXPECT_EQ(ready["audit"]["dropped"], 0);
  EXPECT_GE(ready["audit"]["written"].get<int>(), 1);
}

TEST_F(AuditTest, BadQueriesAndMissingScopesAreRefused) {
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/audit?cursor=not-a-cursor", reader_.key), 400,
                         "invalid_request_error", "invalid_parameter", "cursor"));
  EXPECT_TRUE(
      IsApiError(http_get(port(), "/v1/audit?from=2026-11-25T00:00:00Z&to=2026-11-24T00:00:00Z", reader_.key),
                 400, "invalid_request_error", "invalid_parameter", "from"));
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/audit?tenant=ops", reader_.key), 400, "invalid_request_error",
                         "invalid_parameter", "tenant"));
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/audit?limit=0", reader_.key), 400, "invalid_request_error",
                         "invalid_parameter", "limit"));
  EXPECT_TRUE(IsApiError(http_get(port(), "/v1/audit", stack_->key.key), 403, "authentication_error",
                         "permission_denied"));
  // A cursor from one tenant's filters does not serve another filter.
  const json p = audit(reader_.key, "?limit=1", 1);
  if (p["has_more"].get<bool>()) {
    EXPECT_TRUE(IsApiError(
        http_get(port(), "/v1/audit?limit=1&actor=cli&cursor=" + p["next_cursor"].get<std::string>(),
                 reader_.key),
        400, "invalid_request_error", "invalid_parameter", "cursor"));
  }
  EXPECT_TRUE(IsApiError(call("GET", "/internal/v1/audit?tenant=nobody", admin_.key), 404,
                         "invalid_request_error", "not_found", "tenant"));
}

TEST_F(AuditTest, APiiBlockIsAnEventWithCategoriesNeverTheValue) {
  gw().create_tenant("pii-audited");  // the config's default mode: block
  const auto key = gw().create_key("pii-audited", "chat audit:read");
  const json body = {{"model", "gpt-4o-mini"}, {"messages", user_messages(std::string("pay with ") + kCard)}};
  const auto r = post_chat(port(), key.key, body.dump());
  ASSERT_TRUE(IsApiError(r, 422, "invalid_request_error", "pii_detected", "messages[0].content")) << r.body;
  const json page = audit(key.key, "?action=pii.blocked", 1);
  ASSERT_EQ(page["data"].size(), 1u) << page.dump();
  const json& e = page["data"][0];
  EXPECT_EQ(e["request_id"], r.header("x-request-id"));
  EXPECT_EQ(e["actor"], "key " + std::to_string(key.id) + " (tenant pii-audited)");
  EXPECT_EQ(e["details"]["findings"]["payment_card"], 1);
  EXPECT_EQ(e["details"]["param"], "messages[0].content");
  // The whole number, not a prefix: the event's ids and hashes are random
  // text that may hold any four digits (one run's held "4111").
  EXPECT_EQ(e.dump().find(kCard), std::string::npos) << "the event holds the card number";
  EXPECT_EQ(e.dump().find("4111111111111111"), std::string::npos) << "the event holds the card's digits";
}

TEST_F(AuditTest, OnlyTheFirstBudgetExhaustionOfAWindowIsAnEvent) {
  gw().create_tenant("broke");
  const auto key = gw().create_key("broke", "chat audit:read");
  ASSERT_EQ(gw().cli({"budgets", "create", "--tenant", "broke", "--window", "day", "--limit", "0.000001"})
                .exit_code,
            0);
  std::this_thread::sleep_for(300ms);
  std::string first_refused;
  for (int i = 0; i < 3; ++i) {
    const auto r = post_chat(port(), key.key, chat_body("gpt-4o-mini", "spend " + std::to_string(i)));
    ASSERT_EQ(r.status, 402) << r.body;
    if (first_refused.empty()) first_refused = r.header("x-request-id");
  }
  const json page = audit(key.key, "?action=budget.exhausted", 1);
  std::this_thread::sleep_for(200ms);
  const json again = http_get(port(), "/v1/audit?action=budget.exhausted", key.key).json();
  ASSERT_EQ(again["data"].size(), 1u) << again.dump();
  EXPECT_EQ(again["data"][0]["request_id"], first_refused);
  EXPECT_EQ(again["data"][0]["actor"], "key " + std::to_string(key.id) + " (tenant broke)");
}

// Its own gateway: stopped, then its database is edited by hand.
class AuditVerifyTest : public ::testing::Test {
 protected:
  static void exec(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    const std::string why = err != nullptr ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << why;
  }
  static std::int64_t tenant_id(const std::string& path, const std::string& name) {
    sqlite3* db = nullptr;
    std::int64_t id = -1;
    if (sqlite3_open(path.c_str(), &db) == SQLITE_OK) {
      sqlite3_stmt* st = nullptr;
      sqlite3_prepare_v2(db, "SELECT id FROM tenants WHERE name = ?1", -1, &st, nullptr);
      sqlite3_bind_text(st, 1, name.c_str(), -1, SQLITE_TRANSIENT);
      if (sqlite3_step(st) == SQLITE_ROW) id = sqlite3_column_int64(st, 0);
      sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return id;
  }
};

TEST_F(AuditVerifyTest, VerifyPassesAnIntactLogAndNamesEachKindOfTampering) {
  auto stack = start_stack();
  auto& gw = *stack->gateway;
  // Four tenants with five events each, then rejected credentials.
  for (const char* t : {"edited", "removed", "inserted", "reordered"}) {
    gw.create_tenant(t);
    for (int i = 0; i < 4; ++i) {
      ASSERT_EQ(gw.cli({"tenants", "settings", t, "--set",
                        json{{"rate_limits", {{"tenant_requests_per_minute", 100 + i}}}}.dump()})
                    .exit_code,
                0);
    }
  }
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(post_chat(stack->port(), "mgw_not-a-key", chat_body("gpt-4o-mini", "x")).status, 401);
  ASSERT_EQ(gw.stop(), 0);
  const std::string db = gw.db_path();

  // SIGTERM wrote the rejected-credential count for this minute.
  {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(
        h, "SELECT details_json FROM audit_events WHERE tenant_id = 0 AND action = 'auth.rejected'", -1, &st,
        nullptr);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    const json details = json::parse(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    EXPECT_EQ(details["count"], 5);
    sqlite3_finalize(st);
    sqlite3_close(h);
  }

  auto intact = gw.cli({"audit", "verify"});
  EXPECT_EQ(intact.exit_code, 0) << intact.out << intact.err;
  EXPECT_NE(intact.out.find("audit log intact"), std::string::npos) << intact.out;

  const auto id = [&](const char* name) { return std::to_string(tenant_id(db, name)); };
  exec(db,
       "UPDATE audit_events SET target = 'tenant nobody' WHERE tenant_id = " + id("edited") + " AND seq = 3");
  exec(db, "DELETE FROM audit_events WHERE tenant_id = " + id("removed") + " AND seq = 2");
  exec(db,
       "INSERT INTO audit_events (tenant_id, seq, created_unix_ms, actor, action, target, request_id, "
       "details_json, prev_hash, hash) VALUES (" +
           id("inserted") + ", 6, 1764115200000, 'cli', 'key.create', 'key 99', '', '{}', 'x', 'y')");
  const std::string r = id("reordered");
  exec(db, "UPDATE audit_events SET seq = 100 WHERE tenant_id = " + r +
               " AND seq = 2; UPDATE audit_events SET seq = 2 "
               "WHERE tenant_id = " +
               r + " AND seq = 3; UPDATE audit_events SET seq = 3 WHERE tenant_id = " + r +
               " AND seq = 100;");

  auto report = gw.cli({"audit", "verify"});
  EXPECT_EQ(report.exit_code, 1) << report.out << report.err;
  EXPECT_NE(report.out.find("tenant edited (id " + id("edited") + "): edited at seq 3"), std::string::npos)
      << report.out;
  EXPECT_NE(report.out.find("tenant removed (id " + id("removed") + "): removed at seq 2"), std::string::npos)
      << report.out;
  EXPECT_NE(report.out.find("tenant inserted (id " + id("inserted") + "): inserted at seq 6"),
            std::string::npos)
      << report.out;
  EXPECT_NE(report.out.find("tenant reordered (id " + id("reordered") + "): reordered at seq 2"),
            std::string::npos)
      << report.out;
  EXPECT_NE(report.out.find("tampered"), std::string::npos);

  // One tenant at a time.
  auto one = gw.cli({"audit", "verify", "--tenant", "removed"});
  EXPECT_EQ(one.exit_code, 1);
  EXPECT_EQ(one.out.find("tenant edited"), std::string::npos) << one.out;
  EXPECT_EQ(gw.cli({"audit", "verify", "--tenant", "nobody"}).exit_code, 2);
}

}  // namespace
}  // namespace it

namespace it {
namespace {

// Audit events the store refuses past audit.queue_limit wait in the audit
// journal instead of being dropped, and reach the chain once it answers.
TEST(AuditJournalTest, EventsPastTheQueueLimitAreJournaledNotDropped) {
  GatewayOptions o;
  o.pii_yaml = "pii:\n  default_mode: block\n";
  o.extra_yaml = "audit:\n  flush_interval_ms: 20\n  queue_limit: 3\n";
  auto stack = start_stack(o);
  auto& gw = *stack->gateway;
  gw.create_tenant("journaled");
  const auto key = gw.create_key("journaled", "chat");
  const auto tenant = stack->usage().tenant_id("journaled");
  ASSERT_TRUE(tenant.has_value());
  for (int i = 0; i < 60 && unix_ms_now() % 60000 > 45000; ++i) std::this_thread::sleep_for(500ms);
  stack->usage().exec("ALTER TABLE audit_events RENAME TO audit_events_away");
  for (int i = 0; i < 8; ++i) {
    const auto r =
        post_chat(stack->port(), key.key,
                  chat_body("gpt-4o-mini", "card 4111 1111 1111 1111 number " + std::to_string(i)));
    EXPECT_EQ(r.status, 422) << r.body;
  }
  const std::string dir = gw.log_path().substr(0, gw.log_path().rfind('/'));
  const std::string journal = dir + "/usage.audit.journal";
  EXPECT_TRUE(eventually([&] {
    std::error_code ec;
    return std::filesystem::file_size(journal, ec) > 0 && !ec;
  })) << "nothing reached "
      << journal;
  stack->usage().exec("ALTER TABLE audit_events_away RENAME TO audit_events");
  EXPECT_TRUE(eventually([&] { return stack->usage().count_audit(*tenant, "pii.blocked") == 8; }))
      << stack->usage().count_audit(*tenant, "pii.blocked") << " of 8 events reached the chain";
  EXPECT_EQ(gw.log().find("are dropped"), std::string::npos);
}

}  // namespace
}  // namespace it
