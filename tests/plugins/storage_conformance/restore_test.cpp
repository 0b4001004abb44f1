// ABI 1.5 restore hooks (`modelgw storage copy`) in every store: tenants, API
// keys and budgets stored with the source's ids, ledger windows listed and
// restored, every restore idempotent (equal is OK, different is CONFLICT and
// changes nothing), and ids created afterwards above every restored one.
#include "fixture.h"

#include <chrono>
#include <ostream>
#include <tuple>

namespace storage_test {
namespace {

// One ledger window as on_ledger_list passes it, copied.
struct Window {
  std::string account;
  std::int64_t window_start = 0;
  std::int64_t spent = 0;
  bool operator==(const Window& o) const {
    return std::tie(account, window_start, spent) == std::tie(o.account, o.window_start, o.spent);
  }
};

void PrintTo(const Window& w, std::ostream* os) {
  *os << "{" << w.account << ", " << w.window_start << ", " << w.spent << "}";
}

// A row sink of `struct_size` bytes recording ledger windows: RowRecorder has
// no ledger callback, and an older host's sink is shorter.
struct WindowRecorder {
  std::vector<Window> windows;
  mgw_row_sink sink{};

  explicit WindowRecorder(std::uint32_t struct_size = sizeof(mgw_row_sink)) {
    sink.struct_size = struct_size;
    sink.host_data = this;
    // Set even when struct_size leaves it out: a plugin that calls it anyway shows.
    sink.callback_ledger_window = [](void* self, const mgw_ledger_window* r) {
      static_cast<WindowRecorder*>(self)->windows.push_back(
          {s(r->account), r->window_start_unix_ms, r->spent});
    };
  }
  WindowRecorder(const WindowRecorder&) = delete;
  WindowRecorder& operator=(const WindowRecorder&) = delete;
};

void expect_same_tenant(const Tenant& got, const Tenant& want) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.created_unix_ms, want.created_unix_ms);
  EXPECT_EQ(got.settings_json, want.settings_json);
}

void expect_same_key(const ApiKey& got, const ApiKey& want) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.tenant_id, want.tenant_id);
  EXPECT_EQ(got.key_hash, want.key_hash);
  EXPECT_EQ(got.display_prefix, want.display_prefix);
  EXPECT_EQ(got.scopes, want.scopes);
  EXPECT_EQ(got.created_unix_ms, want.created_unix_ms);
  EXPECT_EQ(got.revoked_unix_ms, want.revoked_unix_ms);
}

void expect_same_budget(const Budget& got, const Budget& want) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.tenant_id, want.tenant_id);
  EXPECT_EQ(got.scope, want.scope);
  EXPECT_EQ(got.subject, want.subject);
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.window, want.window);
  EXPECT_EQ(got.limit_micros, want.limit_micros);
  EXPECT_EQ(got.created_unix_ms, want.created_unix_ms);
}

class RestoreTest : public StorageTest {
 protected:
  mgw_status restore(mgw_storage* s, const Tenant& t) {
    mgw_tenant_record r{};
    r.struct_size = sizeof r;
    r.id = t.id;
    r.name = mgw::str(t.name);
    r.created_unix_ms = t.created_unix_ms;
    r.settings_json = mgw::str(t.settings_json);
    return h().on_tenant_restore(s, &r, nullptr);
  }

  mgw_status restore(mgw_storage* s, const ApiKey& k) {
    mgw_api_key_record r{};
    r.struct_size = sizeof r;
    r.id = k.id;
    r.tenant_id = k.tenant_id;
    r.tenant_name = mgw::str(k.tenant_name);
    r.key_hash = mgw::str(k.key_hash);
    r.display_prefix = mgw::str(k.display_prefix);
    r.scopes = mgw::str(k.scopes);
    r.created_unix_ms = k.created_unix_ms;
    r.revoked_unix_ms = k.revoked_unix_ms;
    return h().on_api_key_restore(s, &r, nullptr);
  }

  mgw_status restore(mgw_storage* s, const Budget& b) {
    mgw_budget_record r{};
    r.struct_size = sizeof r;
    r.id = b.id;
    r.tenant_id = b.tenant_id;
    r.scope = mgw::str(b.scope);
    r.subject = mgw::str(b.subject);
    r.name = mgw::str(b.name);
    r.window = mgw::str(b.window);
    r.limit_micros = b.limit_micros;
    r.created_unix_ms = b.created_unix_ms;
    return h().on_budget_restore(s, &r, nullptr);
  }

  mgw_status restore(mgw_storage* s, const Window& w) {
    mgw_ledger_window r{};
    r.struct_size = sizeof r;
    r.account = mgw::str(w.account);
    r.window_start_unix_ms = w.window_start;
    r.spent = w.spent;
    return h().on_ledger_restore(s, &r, nullptr);
  }

  std::vector<Tenant> tenants() {
    RowRecorder rows;
    EXPECT_EQ(h().on_tenant_list(storage(), &rows.sink, nullptr), MGW_OK);
    return rows.tenants;
  }

  std::vector<ApiKey> keys() {
    RowRecorder rows;
    EXPECT_EQ(h().on_api_key_list(storage(), 0, &rows.sink, nullptr), MGW_OK);
    return rows.keys;
  }

  std::vector<Budget> budgets(std::int64_t tenant_id = 0) {
    RowRecorder rows;
    EXPECT_EQ(h().on_budget_list(storage(), tenant_id, &rows.sink, nullptr), MGW_OK);
    return rows.budgets;
  }

  std::vector<Window> windows(mgw_storage* s) {
    WindowRecorder rows;
    mgw::testing::TextRecorder error;
    EXPECT_EQ(h().on_ledger_list(s, &rows.sink, &error.sink), MGW_OK) << error.text;
    return rows.windows;
  }

  mgw_ledger_state read(mgw_storage* s, const std::string& account, std::int64_t window_start) {
    mgw_ledger_state st{};
    st.struct_size = sizeof st;
    EXPECT_EQ(h().on_ledger_read(s, mgw::str(account), window_start, now_ms(), &st, nullptr), MGW_OK);
    return st;
  }

  mgw_lease_grant take(mgw_storage* s, const std::string& account, std::int64_t window_start,
                       std::int64_t limit, std::int64_t want) {
    mgw_lease_request r{};
    r.struct_size = sizeof r;
    r.account = mgw::str(account);
    r.window_start_unix_ms = window_start;
    r.limit = limit;
    r.want = want;
    r.at_least = 1;
    r.expires_unix_ms = now_ms() + 60000;
    r.holder = mgw::str("restore-test");
    mgw_lease_grant g{};
    g.struct_size = sizeof g;
    EXPECT_EQ(h().on_lease_take(s, &r, &g, nullptr), MGW_OK);
    return g;
  }

  // Settles `amount` of `lease` through a usage record, as the gateway does.
  void charge(mgw_storage* s, std::int64_t tenant_id, std::int64_t lease, std::int64_t amount,
              const std::string& request_id) {
    Usage u;
    u.request_id = request_id;
    u.tenant_id = tenant_id;
    u.created_unix_ms = now_ms();
    u.cost_micros = amount;
    u.charges = {mgw_ledger_charge{lease, amount}};
    const auto r = u.record();
    mgw::testing::TextRecorder error;
    ASSERT_EQ(h().on_usage_insert(s, &r, 1, &error.sink), MGW_OK) << error.text;
  }
};

// ---- tenants ---------------------------------------------------------------

const Tenant kAcme{5, "acme", 1700000000123, R"({ "pii": {"mode": "mask"},  "z": 1 })"};
const Tenant kGlobex{9, "globex", 42, "{}"};

TEST_P(RestoreTest, TenantRestoreKeepsIdNameCreatedTimeAndSettings) {
  ASSERT_EQ(restore(storage(), kGlobex), MGW_OK);
  ASSERT_EQ(restore(storage(), kAcme), MGW_OK);
  RowRecorder found;
  ASSERT_EQ(h().on_tenant_find(storage(), mgw::str("acme"), &found.sink, nullptr), MGW_OK);
  ASSERT_EQ(found.tenants.size(), 1u);
  expect_same_tenant(found.tenants[0], kAcme);
  const auto all = tenants();
  ASSERT_EQ(all.size(), 2u);
  expect_same_tenant(all[0], kAcme);
  expect_same_tenant(all[1], kGlobex);
}

TEST_P(RestoreTest, TenantRestoreOfTheSameRecordAgainIsOk) {
  ASSERT_EQ(restore(storage(), kAcme), MGW_OK);
  EXPECT_EQ(restore(storage(), kAcme), MGW_OK);
  const auto all = tenants();
  ASSERT_EQ(all.size(), 1u);
  expect_same_tenant(all[0], kAcme);
}

TEST_P(RestoreTest, TenantRestoreOfAnotherTenantUnderTheIdIsConflictAndChangesNothing) {
  ASSERT_EQ(restore(storage(), kAcme), MGW_OK);
  Tenant renamed = kAcme;
  renamed.name = "other";
  EXPECT_EQ(restore(storage(), renamed), MGW_CONFLICT);
  Tenant older = kAcme;
  older.created_unix_ms = 1;
  EXPECT_EQ(restore(storage(), older), MGW_CONFLICT);
  Tenant resettled = kAcme;
  resettled.settings_json = "{}";
  EXPECT_EQ(restore(storage(), resettled), MGW_CONFLICT);
  const auto all = tenants();
  ASSERT_EQ(all.size(), 1u);
  expect_same_tenant(all[0], kAcme);
  RowRecorder found;
  EXPECT_EQ(h().on_tenant_find(storage(), mgw::str("other"), &found.sink, nullptr), MGW_NOT_FOUND);
}

TEST_P(RestoreTest, TenantRestoreOfATakenNameUnderAnotherIdIsConflict) {
  ASSERT_EQ(restore(storage(), kAcme), MGW_OK);
  Tenant twin = kAcme;
  twin.id = 6;
  EXPECT_EQ(restore(storage(), twin), MGW_CONFLICT);
  const auto all = tenants();
  ASSERT_EQ(all.size(), 1u);
  expect_same_tenant(all[0], kAcme);
}

TEST_P(RestoreTest, TenantsCreatedAfterARestoreGetIdsAboveEveryRestoredOne) {
  // 9 then a lower 3: the next id follows the highest, not the last restored.
  ASSERT_EQ(restore(storage(), kAcme), MGW_OK);
  ASSERT_EQ(restore(storage(), kGlobex), MGW_OK);
  ASSERT_EQ(restore(storage(), Tenant{3, "initech", 7, "{}"}), MGW_OK);
  const std::int64_t first = create_tenant(storage(), "fresh");
  EXPECT_GT(first, 9);
  const std::int64_t second = create_tenant(storage(), "fresher");
  EXPECT_GT(second, first);
  EXPECT_EQ(tenants().size(), 5u);
}

TEST_P(RestoreTest, TenantRestoreRefusesANonPositiveId) {
  Tenant zero = kAcme;
  zero.id = 0;
  EXPECT_EQ(restore(storage(), zero), MGW_INVALID_ARGUMENT);
  Tenant negative = kAcme;
  negative.id = -3;
  EXPECT_EQ(restore(storage(), negative), MGW_INVALID_ARGUMENT);
  EXPECT_TRUE(tenants().empty());
}

// ---- API keys --------------------------------------------------------------

class KeyRestoreTest : public RestoreTest {
 protected:
  void SetUp() override {
    RestoreTest::SetUp();
    ASSERT_EQ(restore(storage(), Tenant{3, "acme", 1, "{}"}), MGW_OK);
    ASSERT_EQ(restore(storage(), Tenant{7, "globex", 2, "{}"}), MGW_OK);
  }

  const ApiKey live_{12, 3, "acme", fake_hash(1), "mgw_live_ab", "chat admin", 1700000000999, 0};
  const ApiKey revoked_{20, 7, "globex", fake_hash(2), "mgw_live_cd", "chat", 5, 1700000001000};
};

TEST_P(KeyRestoreTest, ApiKeyRestoreKeepsEveryFieldRevocationIncluded) {
  ASSERT_EQ(restore(storage(), revoked_), MGW_OK);
  ASSERT_EQ(restore(storage(), live_), MGW_OK);
  RowRecorder found;
  ASSERT_EQ(h().on_api_key_find_by_hash(storage(), mgw::str(fake_hash(2)), &found.sink, nullptr), MGW_OK);
  ASSERT_EQ(found.keys.size(), 1u);
  expect_same_key(found.keys[0], revoked_);
  EXPECT_EQ(found.keys[0].tenant_name, "globex");
  const auto all = keys();
  ASSERT_EQ(all.size(), 2u);
  const bool live_first = all[0].id == live_.id;
  expect_same_key(all[live_first ? 0 : 1], live_);
  expect_same_key(all[live_first ? 1 : 0], revoked_);
}

TEST_P(KeyRestoreTest, ApiKeyRestoreOfTheSameKeyAgainIsOk) {
  ASSERT_EQ(restore(storage(), live_), MGW_OK);
  EXPECT_EQ(restore(storage(), live_), MGW_OK);
  const auto all = keys();
  ASSERT_EQ(all.size(), 1u);
  expect_same_key(all[0], live_);
}

TEST_P(KeyRestoreTest, ApiKeyRestoreOfADifferentKeyIsConflictAndChangesNothing) {
  ASSERT_EQ(restore(storage(), live_), MGW_OK);
  std::vector<ApiKey> differing(7, live_);
  differing[0].tenant_id = 7;
  differing[1].key_hash = fake_hash(3);
  differing[2].display_prefix = "mgw_live_zz";
  differing[3].scopes = "chat";
  differing[4].created_unix_ms += 1;
  differing[5].revoked_unix_ms = 1700000002000;
  differing[6].id = 13;  // another id holding the same hash
  for (std::size_t i = 0; i < differing.size(); ++i)
    EXPECT_EQ(restore(storage(), differing[i]), MGW_CONFLICT) << "variant " << i;
  const auto all = keys();
  ASSERT_EQ(all.size(), 1u);
  expect_same_key(all[0], live_);
}

TEST_P(KeyRestoreTest, ApiKeyRestoreForAnUnknownTenantIsInvalidArgument) {
  ApiKey orphan = live_;
  orphan.tenant_id = 99;
  EXPECT_EQ(restore(storage(), orphan), MGW_INVALID_ARGUMENT);
  ApiKey zero = live_;
  zero.id = 0;
  EXPECT_EQ(restore(storage(), zero), MGW_INVALID_ARGUMENT);
  EXPECT_TRUE(keys().empty());
}

TEST_P(KeyRestoreTest, ApiKeysCreatedAfterARestoreGetIdsAboveEveryRestoredOne) {
  ASSERT_EQ(restore(storage(), revoked_), MGW_OK);  // 20, then a lower 12
  ASSERT_EQ(restore(storage(), live_), MGW_OK);
  const std::int64_t id = create_key(storage(), NewKey{3, fake_hash(4)});
  EXPECT_GT(id, 20);
  EXPECT_EQ(keys().size(), 3u);
}

// ---- budgets ---------------------------------------------------------------

class BudgetRestoreTest : public KeyRestoreTest {
 protected:
  const Budget month_{4, 3, "tenant", "", "monthly cap", "month", 5'000'000, 1700000000000};
  const Budget credit_{8, 3, "credit", "", "", "none", 2'000'000, 1700000000500};
  const Budget search_{11, 7, "feature", "search", "", "day", 1000, 77};
};

TEST_P(BudgetRestoreTest, BudgetRestoreKeepsEveryFieldCreditIncluded) {
  ASSERT_EQ(restore(storage(), search_), MGW_OK);
  ASSERT_EQ(restore(storage(), credit_), MGW_OK);
  ASSERT_EQ(restore(storage(), month_), MGW_OK);
  const auto all = budgets();
  ASSERT_EQ(all.size(), 3u);
  expect_same_budget(all[0], month_);
  expect_same_budget(all[1], credit_);
  expect_same_budget(all[2], search_);
  const auto acme = budgets(3);
  ASSERT_EQ(acme.size(), 2u);
  expect_same_budget(acme[1], credit_);
}

TEST_P(BudgetRestoreTest, BudgetRestoreOfTheSameBudgetAgainIsOk) {
  ASSERT_EQ(restore(storage(), credit_), MGW_OK);
  EXPECT_EQ(restore(storage(), credit_), MGW_OK);
  const auto all = budgets();
  ASSERT_EQ(all.size(), 1u);
  expect_same_budget(all[0], credit_);
}

TEST_P(BudgetRestoreTest, BudgetRestoreOfADifferentBudgetIsConflictAndChangesNothing) {
  ASSERT_EQ(restore(storage(), month_), MGW_OK);
  std::vector<Budget> differing(8, month_);
  differing[0].tenant_id = 7;
  differing[1].scope = "credit";
  differing[1].window = "none";
  differing[2].scope = "feature";
  differing[2].subject = "search";
  differing[3].name = "renamed";
  differing[4].window = "day";
  differing[5].limit_micros += 1;
  differing[6].created_unix_ms += 1;
  differing[7].id = 5;  // another id holding the same tenant, scope, subject and window
  for (std::size_t i = 0; i < differing.size(); ++i)
    EXPECT_EQ(restore(storage(), differing[i]), MGW_CONFLICT) << "variant " << i;
  const auto all = budgets();
  ASSERT_EQ(all.size(), 1u);
  expect_same_budget(all[0], month_);
}

TEST_P(BudgetRestoreTest, BudgetRestoreForAnUnknownTenantIsInvalidArgument) {
  Budget orphan = month_;
  orphan.tenant_id = 99;
  EXPECT_EQ(restore(storage(), orphan), MGW_INVALID_ARGUMENT);
  Budget zero = month_;
  zero.id = 0;
  EXPECT_EQ(restore(storage(), zero), MGW_INVALID_ARGUMENT);
  EXPECT_TRUE(budgets().empty());
}

TEST_P(BudgetRestoreTest, BudgetsCreatedAfterARestoreGetIdsAboveEveryRestoredOne) {
  ASSERT_EQ(restore(storage(), search_), MGW_OK);  // 11, then a lower 4
  ASSERT_EQ(restore(storage(), month_), MGW_OK);
  mgw_budget_record b{};
  b.struct_size = sizeof b;
  b.tenant_id = 3;
  b.scope = mgw::str("tenant");
  b.subject = mgw::str("");
  b.window = mgw::str("day");
  b.limit_micros = 10;
  std::int64_t id = 0;
  mgw::testing::TextRecorder error;
  ASSERT_EQ(h().on_budget_create(storage(), &b, &id, &error.sink), MGW_OK) << error.text;
  EXPECT_GT(id, 11);
  EXPECT_EQ(budgets().size(), 3u);
}

// ---- ledger windows --------------------------------------------------------

TEST_P(RestoreTest, LedgerListGivesEverySettledWindowByAccountThenWindowAndACopyReadsTheSame) {
  const std::int64_t tenant = create_tenant(storage(), "acme");
  // Taken out of order, so that an unordered list shows.
  const auto b200 = take(storage(), "budget:b", 200, 1000, 500);
  const auto b100 = take(storage(), "budget:b", 100, 1000, 500);
  const auto a300 = take(storage(), "budget:a", 300, 1000, 500);
  charge(storage(), tenant, b200.lease_id, 120, "r1");
  charge(storage(), tenant, b100.lease_id, 30, "r2");
  charge(storage(), tenant, b200.lease_id, 5, "r3");
  charge(storage(), tenant, a300.lease_id, 400, "r4");
  const std::vector<Window> expected{{"budget:a", 300, 400}, {"budget:b", 100, 30}, {"budget:b", 200, 125}};
  const auto listed = windows(storage());
  ASSERT_EQ(listed, expected);

  // Into a second, fresh database, as `modelgw storage copy` does.
  auto copy_db = backend().fresh_database(current_test_name() + "_copy");
  Storage copy(h(), copy_db->config());
  for (const auto& w : listed)
    ASSERT_EQ(restore(copy.get(), w), MGW_OK) << w.account << " " << w.window_start;
  for (const auto& w : expected) {
    const auto st = read(copy.get(), w.account, w.window_start);
    EXPECT_EQ(st.spent, w.spent) << w.account << " " << w.window_start;
    EXPECT_EQ(st.reserved, 0) << "leases are not copied";
  }
  EXPECT_EQ(windows(copy.get()), expected);
}

TEST_P(RestoreTest, LedgerRestoreIsIdempotentAndRefusesAnotherSpend) {
  const Window w{"budget:1", 100, 250};
  ASSERT_EQ(restore(storage(), w), MGW_OK);
  EXPECT_EQ(restore(storage(), w), MGW_OK);
  Window more = w;
  more.spent = 251;
  EXPECT_EQ(restore(storage(), more), MGW_CONFLICT);
  Window none = w;
  none.spent = 0;
  EXPECT_EQ(restore(storage(), none), MGW_CONFLICT);
  EXPECT_EQ(read(storage(), "budget:1", 100).spent, 250);
  EXPECT_EQ(windows(storage()), std::vector<Window>{w});
}

TEST_P(RestoreTest, LedgerRestoreRefusesANegativeSpend) {
  EXPECT_EQ(restore(storage(), Window{"budget:1", 100, -1}), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(read(storage(), "budget:1", 100).spent, 0);
  EXPECT_TRUE(windows(storage()).empty());
}

TEST_P(RestoreTest, LedgerListPassesNothingToARowSinkOlderThanABI15) {
  ASSERT_EQ(restore(storage(), Window{"budget:1", 100, 250}), MGW_OK);
  ASSERT_EQ(restore(storage(), Window{"budget:2", 0, 7}), MGW_OK);
  WindowRecorder old(static_cast<std::uint32_t>(MGW_ROW_SINK_SIZE_1_3));
  mgw::testing::TextRecorder error;
  EXPECT_EQ(h().on_ledger_list(storage(), &old.sink, &error.sink), MGW_OK) << error.text;
  EXPECT_TRUE(old.windows.empty()) << "callback_ledger_window lies past the sink's struct_size";
  EXPECT_EQ(windows(storage()).size(), 2u) << "a current sink gets them";
}

TEST_P(RestoreTest, ALeaseOnARestoredWindowFreesOnlyLimitMinusSpent) {
  ASSERT_EQ(restore(storage(), Window{"budget:9", 100, 700}), MGW_OK);
  const auto first = take(storage(), "budget:9", 100, 1000, 1000);
  EXPECT_EQ(first.added, 300);
  EXPECT_EQ(first.spent, 700);
  EXPECT_EQ(take(storage(), "budget:9", 100, 1000, 1000).added, 0) << "nothing is left";
  // Another window of the account starts from nothing.
  EXPECT_EQ(take(storage(), "budget:9", 200, 1000, 1000).added, 1000);
}

INSTANTIATE_TEST_SUITE_P(Backends, RestoreTest, MGW_STORAGE_BACKENDS);
INSTANTIATE_TEST_SUITE_P(Backends, KeyRestoreTest, MGW_STORAGE_BACKENDS);
INSTANTIATE_TEST_SUITE_P(Backends, BudgetRestoreTest, MGW_STORAGE_BACKENDS);

}  // namespace
}  // namespace storage_test
