// ABI 1.3 in every store: audit events appended all or none, a taken
// (tenant, seq) refused with MGW_CONFLICT, pages filtered and ordered both
// ways, and the head of every chain. ABI 1.7: each event's MAC kept, and an
// older host's shorter events taken without one.
#include "fixture.h"

#include <cstring>
#include <list>

namespace storage_test {
namespace {

struct Events {
  std::vector<mgw_audit_event> rows;
  std::list<std::string> text;  // keeps the strings the rows point to
  mgw_row_sink sink{};
  Events() {
    sink.struct_size = sizeof sink;
    sink.host_data = this;
    sink.callback_audit = [](void* self, const mgw_audit_event* e) {
      auto* me = static_cast<Events*>(self);
      mgw_audit_event copy = *e;
      copy.action = mgw::str(me->text.emplace_back(mgw::view(e->action)));
      copy.actor = mgw::str(me->text.emplace_back(mgw::view(e->actor)));
      copy.hash = mgw::str(me->text.emplace_back(mgw::view(e->hash)));
      copy.mac = MGW_HAS_FIELD(e, mgw_audit_event, mac) ? mgw::str(me->text.emplace_back(mgw::view(e->mac)))
                                                        : mgw_str{nullptr, 0};
      me->rows.push_back(copy);
    };
  }
};

class AuditStoreTest : public StorageTest {
 protected:
  mgw_audit_event event(std::int64_t tenant, std::int64_t seq, const char* action, const char* actor = "cli",
                        std::int64_t at = 1000) {
    mgw_audit_event e{};
    e.struct_size = sizeof e;
    e.tenant_id = tenant;
    e.seq = seq;
    e.created_unix_ms = at;
    e.actor = mgw::str(actor);
    e.action = mgw::str(action);
    e.target = mgw::str("t");
    e.request_id = mgw::str("");
    e.details_json = mgw::str("{}");
    e.prev_hash = mgw::str("p");
    e.hash = mgw::str("h");
    return e;
  }
  Events page(const mgw_audit_filter& f) {
    Events out;
    EXPECT_EQ(h().on_audit_page(storage(), &f, &out.sink, nullptr), MGW_OK);
    return out;
  }
  mgw_audit_filter filter(std::int64_t tenant) {
    mgw_audit_filter f{};
    f.struct_size = sizeof f;
    f.tenant_id = tenant;
    f.limit = 100;
    return f;
  }
};

TEST_P(AuditStoreTest, AppendsAreAllOrNoneAndATakenLinkIsAConflict) {
  std::vector<mgw_audit_event> batch = {event(1, 1, "a"), event(2, 1, "b"), event(1, 2, "c")};
  ASSERT_EQ(h().on_audit_append(storage(), batch.data(), batch.size(), nullptr), MGW_OK);
  // A batch whose second event takes (1, 2) again: nothing of it is stored.
  std::vector<mgw_audit_event> clash = {event(1, 3, "d"), event(1, 2, "e")};
  EXPECT_EQ(h().on_audit_append(storage(), clash.data(), clash.size(), nullptr), MGW_CONFLICT);
  EXPECT_EQ(page(filter(1)).rows.size(), 2u);
  auto bad = event(1, 0, "f");
  EXPECT_EQ(h().on_audit_append(storage(), &bad, 1, nullptr), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h().on_audit_append(storage(), nullptr, 1, nullptr), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h().on_audit_append(storage(), nullptr, 0, nullptr), MGW_OK);
}

TEST_P(AuditStoreTest, PagesFilterAndOrderBothWaysAndHeadsNameEachChain) {
  std::vector<mgw_audit_event> batch;
  for (int i = 1; i <= 6; ++i)
    batch.push_back(event(5, i, i % 2 ? "odd" : "even", i < 4 ? "cli" : "key 1", 1000 * i));
  batch.push_back(event(9, 1, "other"));
  ASSERT_EQ(h().on_audit_append(storage(), batch.data(), batch.size(), nullptr), MGW_OK);

  auto newest = page(filter(5));
  ASSERT_EQ(newest.rows.size(), 6u);
  EXPECT_EQ(newest.rows.front().seq, 6);
  auto f = filter(5);
  f.before_seq = 4;
  f.limit = 2;
  auto older = page(f);
  ASSERT_EQ(older.rows.size(), 2u);
  EXPECT_EQ(older.rows[0].seq, 3);
  f = filter(5);
  f.ascending = 1;
  f.after_seq = 4;
  auto ascending = page(f);
  ASSERT_EQ(ascending.rows.size(), 2u);
  EXPECT_EQ(ascending.rows[0].seq, 5);
  f = filter(5);
  f.action = mgw::str("even");
  f.actor = mgw::str("key 1");
  auto filtered = page(f);
  ASSERT_EQ(filtered.rows.size(), 2u);  // seq 6 and 4
  EXPECT_EQ(filtered.rows[0].seq, 6);
  f = filter(5);
  f.from_unix_ms = 2000;
  f.to_unix_ms = 4000;
  EXPECT_EQ(page(f).rows.size(), 2u);  // created 2000 and 3000
  f = filter(5);
  f.limit = 0;
  Events none;
  EXPECT_EQ(h().on_audit_page(storage(), &f, &none.sink, nullptr), MGW_INVALID_ARGUMENT);

  Events heads;
  ASSERT_EQ(h().on_audit_heads(storage(), &heads.sink, nullptr), MGW_OK);
  ASSERT_EQ(heads.rows.size(), 2u);
  EXPECT_EQ(heads.rows[0].tenant_id, 5);
  EXPECT_EQ(heads.rows[0].seq, 6);
  EXPECT_EQ(heads.rows[1].tenant_id, 9);
}

TEST_P(AuditStoreTest, TheMacIsKeptAndAnOlderHostsEventsHaveNone) {
  auto keyed = event(3, 1, "a");
  const std::string mac(64, 'c');
  keyed.mac = mgw::str(mac);
  ASSERT_EQ(h().on_audit_append(storage(), &keyed, 1, nullptr), MGW_OK);
  // A 1.6 host's events: the 1.3 layout, stepped through by its own size.
  constexpr std::size_t kOld =
      (MGW_AUDIT_EVENT_SIZE_1_3 + alignof(mgw_audit_event) - 1) & ~(alignof(mgw_audit_event) - 1);
  alignas(mgw_audit_event) unsigned char old[2 * kOld] = {};
  for (int i = 0; i < 2; ++i) {
    auto e = event(3, 2 + i, "old");
    e.struct_size = kOld;
    std::memcpy(old + i * kOld, &e, kOld);
  }
  ASSERT_EQ(h().on_audit_append(storage(), reinterpret_cast<const mgw_audit_event*>(old), 2, nullptr),
            MGW_OK);
  auto f = filter(3);
  f.ascending = 1;
  const Events got = page(f);  // owns the text the rows point to
  const auto& rows = got.rows;
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(mgw::view(rows[0].mac), mac);
  EXPECT_EQ(rows[1].mac.len, 0u);
  EXPECT_EQ(rows[2].mac.len, 0u);
  EXPECT_EQ(mgw::view(rows[2].action), "old");
  Events heads;
  ASSERT_EQ(h().on_audit_heads(storage(), &heads.sink, nullptr), MGW_OK);
  ASSERT_EQ(heads.rows.size(), 1u);
  EXPECT_EQ(heads.rows[0].seq, 3);
}

INSTANTIATE_TEST_SUITE_P(Backends, AuditStoreTest, MGW_STORAGE_BACKENDS);

}  // namespace
}  // namespace storage_test
