// ABI 1.9 in every store: stored responses of the Responses API are kept per
// (tenant_id, id) exactly as given, an equal put is OK and a different one
// MGW_CONFLICT leaving the stored row, an expired response is never returned,
// delete and purge (in bounded batches) remove them, and pages walk every
// response by (tenant_id, id) bytewise, expired ones included, for storage
// copy. Arguments the ABI refuses are MGW_INVALID_ARGUMENT with a reason.
#include "fixture.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <ostream>
#include <thread>
#include <tuple>
#include <utility>

namespace storage_test {
namespace {

// One response, owning its strings; record() views them.
struct Response {
  int64_t tenant_id = 1;
  std::string id = "resp_0123456789abcdefghijklmn";
  std::string previous_id;
  int64_t created_unix_ms = 1000;
  int64_t expires_unix_ms = 100'000;
  std::string input_json = R"([{"type":"message","role":"user","content":"héllo"}])";
  std::string response_json = R"({"id":"resp_0123456789abcdefghijklmn","object":"response","output":[]})";

  mgw_response_record record() const& {
    mgw_response_record r{};
    r.struct_size = sizeof r;
    r.tenant_id = tenant_id;
    r.id = mgw::str(id);
    r.previous_id = mgw::str(previous_id);
    r.created_unix_ms = created_unix_ms;
    r.expires_unix_ms = expires_unix_ms;
    r.input_json = mgw::str(input_json);
    r.response_json = mgw::str(response_json);
    return r;
  }
  mgw_response_record record() const&& = delete;

  auto tied() const {
    return std::tie(tenant_id, id, previous_id, created_unix_ms, expires_unix_ms, input_json, response_json);
  }
  bool operator==(const Response& o) const { return tied() == o.tied(); }
};

void PrintTo(const Response& r, std::ostream* os) {
  *os << "{" << r.tenant_id << ", " << r.id << ", prev " << r.previous_id << ", " << r.created_unix_ms << ", "
      << r.expires_unix_ms << ", " << r.input_json.size() << " + " << r.response_json.size() << " bytes}";
}

// A row sink recording responses; `struct_size` as an older host's would be.
struct ResponseRecorder {
  std::vector<Response> rows;
  mgw_row_sink sink{};

  explicit ResponseRecorder(std::uint32_t struct_size = sizeof(mgw_row_sink)) {
    sink.struct_size = struct_size;
    sink.host_data = this;
    sink.callback_response = [](void* self, const mgw_response_record* r) {
      static_cast<ResponseRecorder*>(self)->rows.push_back(Response{r->tenant_id, s(r->id), s(r->previous_id),
                                                                    r->created_unix_ms, r->expires_unix_ms,
                                                                    s(r->input_json), s(r->response_json)});
    };
  }
  ResponseRecorder(const ResponseRecorder&) = delete;
  ResponseRecorder& operator=(const ResponseRecorder&) = delete;
};

class ResponseStoreTest : public StorageTest {
 protected:
  mgw_status put(const Response& r, std::string* why = nullptr) { return put_on(storage(), r, why); }
  mgw_status put_on(mgw_storage* s, const Response& r, std::string* why = nullptr) {
    const auto record = r.record();
    mgw::testing::TextRecorder error;
    const mgw_status st = h().on_response_put(s, &record, &error.sink);
    if (why != nullptr) *why = error.text;
    return st;
  }
  mgw_status get(int64_t tenant, const std::string& id, int64_t now, ResponseRecorder* out) {
    return h().on_response_get(storage(), tenant, mgw::str(id), now, &out->sink, nullptr);
  }
  // The one response (tenant, id) live at `now`, or nothing.
  std::optional<Response> find(int64_t tenant, const std::string& id, int64_t now = 2000) {
    ResponseRecorder out;
    const mgw_status st = get(tenant, id, now, &out);
    if (st == MGW_NOT_FOUND) {
      EXPECT_TRUE(out.rows.empty());
      return std::nullopt;
    }
    EXPECT_EQ(st, MGW_OK);
    EXPECT_EQ(out.rows.size(), 1u);
    if (out.rows.empty()) return std::nullopt;
    return out.rows.front();
  }
  mgw_status page(int64_t after_tenant, const std::string& after_id, int64_t limit, ResponseRecorder* out,
                  std::string* why = nullptr) {
    mgw::testing::TextRecorder error;
    const mgw_status st =
        h().on_response_page(storage(), after_tenant, mgw::str(after_id), limit, &out->sink, &error.sink);
    if (why != nullptr) *why = error.text;
    return st;
  }
  // Every response, in pages of `limit`, as storage copy walks them.
  std::vector<Response> walk(int64_t limit) {
    std::vector<Response> all;
    int64_t after_tenant = 0;
    std::string after_id;
    for (int pages = 0; pages < 100; ++pages) {
      ResponseRecorder out;
      EXPECT_EQ(page(after_tenant, after_id, limit, &out), MGW_OK);
      all.insert(all.end(), out.rows.begin(), out.rows.end());
      if (static_cast<int64_t>(out.rows.size()) < limit) break;
      after_tenant = out.rows.back().tenant_id;
      after_id = out.rows.back().id;
    }
    return all;
  }
};

TEST_P(ResponseStoreTest, APutResponseIsReadBackExactlyAsGiven) {
  Response first;
  ASSERT_EQ(put(first), MGW_OK);
  Response second;
  second.id = "resp_second00000000000000000";
  second.previous_id = first.id;
  second.created_unix_ms = 1500;
  second.input_json = R"([{"type":"function_call_output","call_id":"c1","output":"{\"t\":21}"}])";
  second.response_json = "{\"output_text\":\"\xe2\x9c\x93 \\u0000 done\"}";  // escapes kept as text
  ASSERT_EQ(put(second), MGW_OK);

  EXPECT_EQ(find(1, first.id), first);
  EXPECT_EQ(find(1, second.id), second);
  // A document near the bound comes back whole.
  Response big;
  big.id = "resp_big";
  big.response_json = "{\"t\":\"" + std::string(3'000'000, 'x') + "\"}";
  ASSERT_EQ(put(big), MGW_OK);
  const auto got = find(1, big.id);
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->response_json == big.response_json) << "the stored JSON differs";
}

TEST_P(ResponseStoreTest, AnEqualPutIsOkAndADifferentOneConflictsLeavingTheStoredRow) {
  Response stored;
  ASSERT_EQ(put(stored), MGW_OK);
  EXPECT_EQ(put(stored), MGW_OK) << "a copy that runs again puts the same row";
  EXPECT_EQ(put_on(open()->get(), stored), MGW_OK) << "from another handle (process) too";

  const std::vector<std::pair<std::string, Response>> changes = [&] {
    std::vector<std::pair<std::string, Response>> v;
    Response r = stored;
    r.previous_id = "resp_other";
    v.emplace_back("previous_id", r);
    r = stored;
    r.created_unix_ms += 1;
    v.emplace_back("created_unix_ms", r);
    r = stored;
    r.expires_unix_ms += 1;
    v.emplace_back("expires_unix_ms", r);
    r = stored;
    r.input_json = "[]";
    v.emplace_back("input_json", r);
    r = stored;
    r.response_json += " ";
    v.emplace_back("response_json", r);
    return v;
  }();
  for (const auto& [field, changed] : changes) {
    std::string why;
    EXPECT_EQ(put(changed, &why), MGW_CONFLICT) << field;
    EXPECT_THAT(why, ::testing::HasSubstr(stored.id)) << field;
  }
  EXPECT_EQ(find(1, stored.id), stored) << "a refused put leaves the stored row";
}

TEST_P(ResponseStoreTest, ConcurrentEqualPutsAcrossHandlesAllSucceed) {
  auto second = open();
  Response r;
  std::atomic<int> ok{0}, other{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      const auto record = r.record();
      const mgw_status st = h().on_response_put(i % 2 ? storage() : second->get(), &record, nullptr);
      (st == MGW_OK ? ok : other)++;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 8);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(walk(10).size(), 1u);
}

TEST_P(ResponseStoreTest, ResponsesArePerTenant) {
  Response acme;
  ASSERT_EQ(put(acme), MGW_OK);
  EXPECT_EQ(find(2, acme.id), std::nullopt) << "another tenant's response is not found";
  EXPECT_EQ(h().on_response_delete(storage(), 2, mgw::str(acme.id), nullptr), MGW_NOT_FOUND);
  Response globex = acme;
  globex.tenant_id = 2;
  globex.response_json = R"({"tenant":"globex"})";
  ASSERT_EQ(put(globex), MGW_OK) << "the same id in another tenant is another response";
  EXPECT_EQ(find(1, acme.id), acme);
  EXPECT_EQ(find(2, acme.id), globex);
  Response gateway = acme;
  gateway.tenant_id = 0;
  EXPECT_EQ(put(gateway), MGW_OK) << "tenant 0 is a tenant id like any other";
}

TEST_P(ResponseStoreTest, AnExpiredResponseIsNeverReturnedByGet) {
  Response r;
  r.expires_unix_ms = 5000;
  ASSERT_EQ(put(r), MGW_OK);
  EXPECT_TRUE(find(1, r.id, 4999).has_value());
  EXPECT_EQ(find(1, r.id, 5000), std::nullopt) << "expires_unix_ms <= now is expired";
  EXPECT_EQ(find(1, r.id, 9000), std::nullopt);
  EXPECT_EQ(find(1, "resp_never_stored"), std::nullopt);
  // Still there for copy until purged, and deletable.
  EXPECT_EQ(walk(10).size(), 1u);
  EXPECT_EQ(h().on_response_delete(storage(), 1, mgw::str(r.id), nullptr), MGW_OK);
}

TEST_P(ResponseStoreTest, DeleteRemovesOneResponse) {
  Response a, b;
  b.id = "resp_b";
  ASSERT_EQ(put(a), MGW_OK);
  ASSERT_EQ(put(b), MGW_OK);
  EXPECT_EQ(h().on_response_delete(storage(), 1, mgw::str(a.id), nullptr), MGW_OK);
  EXPECT_EQ(find(1, a.id), std::nullopt);
  EXPECT_EQ(h().on_response_delete(storage(), 1, mgw::str(a.id), nullptr), MGW_NOT_FOUND) << "gone already";
  EXPECT_EQ(find(1, b.id), b) << "only that one";
  // A deleted id may be stored again, with other values.
  a.response_json = R"({"again":true})";
  EXPECT_EQ(put(a), MGW_OK);
  EXPECT_EQ(find(1, a.id), a);
}

TEST_P(ResponseStoreTest, PurgeRemovesOnlyExpiredResponsesInBoundedBatches) {
  for (int i = 0; i < 5; ++i) {
    Response old;
    old.tenant_id = 1 + i % 2;
    old.id = "resp_old" + std::to_string(i);
    old.expires_unix_ms = 100 + i;
    ASSERT_EQ(put(old), MGW_OK);
  }
  Response live;
  live.id = "resp_live";
  live.expires_unix_ms = 10'000;
  ASSERT_EQ(put(live), MGW_OK);
  int64_t removed = -1;
  ASSERT_EQ(h().on_response_purge(storage(), 5000, 3, &removed, nullptr), MGW_OK);
  EXPECT_EQ(removed, 3);
  ASSERT_EQ(h().on_response_purge(storage(), 5000, 3, &removed, nullptr), MGW_OK);
  EXPECT_EQ(removed, 2);
  ASSERT_EQ(h().on_response_purge(storage(), 5000, 3, &removed, nullptr), MGW_OK);
  EXPECT_EQ(removed, 0);
  EXPECT_EQ(h().on_response_purge(storage(), 5000, 3, nullptr, nullptr), MGW_OK) << "out_removed may be NULL";
  EXPECT_EQ(find(1, live.id), live);
  EXPECT_EQ(walk(10), std::vector<Response>{live});
  // At exactly its expiry it goes.
  ASSERT_EQ(h().on_response_purge(storage(), 10'000, 10, &removed, nullptr), MGW_OK);
  EXPECT_EQ(removed, 1);
  EXPECT_TRUE(walk(10).empty());
}

TEST_P(ResponseStoreTest, PagesWalkEveryResponseByTenantThenIdBytewise) {
  // Ids whose bytewise order differs from a language's collation ('B' < 'a'
  // < 'a_' < 'ab'), stored out of order, in three tenants, one expired.
  const std::vector<std::pair<int64_t, std::string>> keys = {
      {2, "resp_a"}, {1, "resp_ab"}, {0, "resp_z"}, {1, "resp_B"},       {2, "resp_B"},
      {1, "resp_a"}, {1, "resp_a_"}, {7, "resp_0"}, {1, "resp_\xc3\xa9"}};
  std::vector<Response> stored;
  for (const auto& [tenant, id] : keys) {
    Response r;
    r.tenant_id = tenant;
    r.id = id;
    r.response_json = "{\"id\":\"" + id + "\"}";
    if (tenant == 7) r.expires_unix_ms = 1;  // expired: still copied
    ASSERT_EQ(put(r), MGW_OK) << id;
    stored.push_back(r);
  }
  auto want = stored;
  std::sort(want.begin(), want.end(), [](const Response& a, const Response& b) {
    return std::tie(a.tenant_id, a.id) < std::tie(b.tenant_id, b.id);  // std::string compares bytewise
  });
  EXPECT_EQ(walk(1000), want);
  EXPECT_EQ(walk(2), want) << "the cursor resumes strictly after the last row";
  EXPECT_EQ(walk(1), want);

  ResponseRecorder after;
  ASSERT_EQ(page(1, "resp_a", 3, &after), MGW_OK);
  ASSERT_EQ(after.rows.size(), 3u);
  EXPECT_EQ(after.rows[0].id, "resp_a_");
  EXPECT_EQ(after.rows[1].id, "resp_ab");
  EXPECT_EQ(after.rows[2].id, "resp_\xc3\xa9");
  ResponseRecorder next_tenant;
  ASSERT_EQ(page(1, "resp_\xc3\xa9", 1000, &next_tenant), MGW_OK);
  ASSERT_EQ(next_tenant.rows.size(), 3u);
  EXPECT_EQ(next_tenant.rows[0].tenant_id, 2);
  EXPECT_EQ(next_tenant.rows[0].id, "resp_B");
  ResponseRecorder none;
  ASSERT_EQ(page(7, "resp_0", 1000, &none), MGW_OK);
  EXPECT_TRUE(none.rows.empty());
}

TEST_P(ResponseStoreTest, BadArgumentsAreRefusedSayingWhy) {
  auto refused = [&](const Response& r, const std::string& what) {
    std::string why;
    EXPECT_EQ(put(r, &why), MGW_INVALID_ARGUMENT) << what;
    EXPECT_FALSE(why.empty()) << what;
  };
  Response r;
  r.id = "";
  refused(r, "empty id");
  r.id = std::string(129, 'r');
  refused(r, "id over 128 bytes");
  r = Response{};
  r.id = std::string(128, 'r');
  EXPECT_EQ(put(r), MGW_OK) << "128 bytes is fine";
  r = Response{};
  r.tenant_id = -1;
  refused(r, "negative tenant");
  r = Response{};
  r.previous_id = std::string(129, 'p');
  refused(r, "previous_id over 128 bytes");
  r = Response{};
  r.input_json.clear();
  refused(r, "empty input_json");
  r = Response{};
  r.response_json.clear();
  refused(r, "empty response_json");
  r = Response{};
  r.response_json = std::string((16u << 20) + 1, ' ');
  refused(r, "response_json over 16 MiB");
  r = Response{};
  r.input_json = std::string((16u << 20) + 1, ' ');
  refused(r, "input_json over 16 MiB");

  r = Response{};
  auto record = r.record();
  record.id = mgw_str{nullptr, 4};
  EXPECT_EQ(h().on_response_put(storage(), &record, nullptr), MGW_INVALID_ARGUMENT);
  record = r.record();
  record.struct_size = MGW_RESPONSE_RECORD_SIZE_1_9 - 1;
  EXPECT_EQ(h().on_response_put(storage(), &record, nullptr), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h().on_response_put(storage(), nullptr, nullptr), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h().on_response_put(nullptr, &record, nullptr), MGW_INVALID_ARGUMENT);
  EXPECT_TRUE(walk(10).size() == 1u) << "only the 128-byte id was stored";

  ResponseRecorder out;
  EXPECT_EQ(get(-1, r.id, 1, &out), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(get(1, "", 1, &out), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(get(1, std::string(129, 'r'), 1, &out), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h().on_response_get(storage(), 1, mgw::str(r.id), 1, nullptr, nullptr), MGW_INVALID_ARGUMENT);
  ResponseRecorder old_host(MGW_ROW_SINK_SIZE_1_5);
  EXPECT_EQ(get(1, r.id, 1, &old_host), MGW_INVALID_ARGUMENT) << "a sink without callback_response";
  EXPECT_TRUE(old_host.rows.empty());
  EXPECT_EQ(h().on_response_delete(storage(), -1, mgw::str(r.id), nullptr), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h().on_response_delete(storage(), 1, mgw::str(""), nullptr), MGW_INVALID_ARGUMENT);

  std::string why;
  EXPECT_EQ(page(0, "", 0, &out, &why), MGW_INVALID_ARGUMENT);
  EXPECT_THAT(why, ::testing::HasSubstr("limit"));
  EXPECT_EQ(page(0, "", 1001, &out), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(page(-1, "", 10, &out), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(page(0, std::string(129, 'r'), 10, &out), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(page(0, "", 10, &old_host), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h().on_response_page(storage(), 0, mgw::str(""), 10, nullptr, nullptr), MGW_INVALID_ARGUMENT);
  int64_t removed = 0;
  EXPECT_EQ(h().on_response_purge(storage(), 1, 0, &removed, nullptr), MGW_INVALID_ARGUMENT);
  EXPECT_EQ(h().on_response_purge(storage(), 1, -5, &removed, nullptr), MGW_INVALID_ARGUMENT);
  EXPECT_TRUE(out.rows.empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, ResponseStoreTest, MGW_STORAGE_BACKENDS);

}  // namespace
}  // namespace storage_test
