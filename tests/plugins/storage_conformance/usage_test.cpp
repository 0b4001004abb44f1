// Usage records: batch insert (all or none) and query filters, order, limit.
#include "fixture.h"

#include <cstring>

namespace storage_test {
namespace {

using ::testing::HasSubstr;

class UsageTest : public StorageTest {
 protected:
  // Five records: tenants 1 and 2, created at 100, 200, ..., 500.
  void insert_five() {
    std::vector<Usage> rows;
    for (int i = 1; i <= 5; ++i) {
      Usage u;
      u.request_id = "req_" + std::to_string(i);
      u.tenant_id = i % 2 == 0 ? 2 : 1;
      u.key_id = 10 + i;
      u.created_unix_ms = 100 * i;
      rows.push_back(u);
    }
    insert_usage(storage(), rows);
  }

  // request_ids of what the query returns, in order.
  std::vector<std::string> query(mgw_usage_query q, mgw_status expected = MGW_OK) {
    q.struct_size = sizeof q;
    RowRecorder rows;
    mgw::testing::TextRecorder error;
    EXPECT_EQ(h().on_usage_query(storage(), &q, &rows.sink, &error.sink), expected) << error.text;
    std::vector<std::string> ids;
    for (const auto& u : rows.usage) ids.push_back(u.request_id);
    return ids;
  }
};

using Ids = std::vector<std::string>;

TEST_P(UsageTest, EveryFieldRoundTrips) {
  Usage u;
  u.request_id = "req_full";
  u.tenant_id = 7;
  u.key_id = 70;
  u.alias = "smart";
  u.provider = "anthropic";
  u.upstream_model = "claude-x";
  u.prompt_tokens = 11;
  u.completion_tokens = 22;
  u.total_tokens = 33;
  u.http_status = 429;
  u.error_code = "rate_limited";
  u.latency_us = 123456;
  u.ttft_us = 4567;
  u.streamed = 1;
  u.created_unix_ms = 1700000000001;
  u.prompt_name = "support-reply";
  u.prompt_version = 3;
  u.pii_action = "masked";
  u.pii_findings = R"({"email":2,"payment_card":1})";
  u.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  insert_usage(storage(), {u});
  RowRecorder rows;
  mgw_usage_query q{};
  q.struct_size = sizeof q;
  ASSERT_EQ(h().on_usage_query(storage(), &q, &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.usage.size(), 1u);
  EXPECT_EQ(rows.usage[0], u);
}

TEST_P(UsageTest, NoFilterReturnsAllNewestFirst) {
  insert_five();
  EXPECT_EQ(query({}), (Ids{"req_5", "req_4", "req_3", "req_2", "req_1"}));
}

TEST_P(UsageTest, FilterByTenant) {
  insert_five();
  mgw_usage_query q{};
  q.tenant_id = 2;
  EXPECT_EQ(query(q), (Ids{"req_4", "req_2"}));
}

TEST_P(UsageTest, FilterByRequestId) {
  insert_five();
  mgw_usage_query q{};
  q.request_id = mgw::str("req_3");
  EXPECT_EQ(query(q), (Ids{"req_3"}));
  q.request_id = mgw::str("req_9");
  EXPECT_EQ(query(q), Ids{});
}

TEST_P(UsageTest, SinceIsInclusive) {
  insert_five();
  mgw_usage_query q{};
  q.since_unix_ms = 300;
  EXPECT_EQ(query(q), (Ids{"req_5", "req_4", "req_3"}));
}

TEST_P(UsageTest, UntilIsExclusive) {
  insert_five();
  mgw_usage_query q{};
  q.until_unix_ms = 300;
  EXPECT_EQ(query(q), (Ids{"req_2", "req_1"}));
}

TEST_P(UsageTest, FiltersCombine) {
  insert_five();
  mgw_usage_query q{};
  q.tenant_id = 1;
  q.since_unix_ms = 200;
  q.until_unix_ms = 500;
  EXPECT_EQ(query(q), (Ids{"req_3"}));
}

TEST_P(UsageTest, LimitKeepsTheNewest) {
  insert_five();
  mgw_usage_query q{};
  q.limit = 2;
  EXPECT_EQ(query(q), (Ids{"req_5", "req_4"}));
}

TEST_P(UsageTest, LimitDefaultsTo100AndIsCappedAt1000) {
  std::vector<Usage> rows(1200);
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].request_id = "req_" + std::to_string(i);
    rows[i].created_unix_ms = static_cast<int64_t>(i) + 1;
  }
  insert_usage(storage(), rows);
  auto default_page = query({});
  ASSERT_EQ(default_page.size(), 100u);
  EXPECT_EQ(default_page.front(), "req_1199");
  mgw_usage_query q{};
  q.limit = 5000;
  EXPECT_EQ(query(q).size(), 1000u);
  q.limit = 1000;
  EXPECT_EQ(query(q).size(), 1000u);
  q.limit = 999;
  EXPECT_EQ(query(q).size(), 999u);
}

TEST_P(UsageTest, NegativeLimitIsRefused) {
  mgw_usage_query q{};
  q.limit = -1;
  query(q, MGW_INVALID_ARGUMENT);
}

TEST_P(UsageTest, BatchIsAllOrNone) {
  // Make the database itself refuse the middle record of the batch.
  db().refuse_usage_insert("boom", "boom refused");
  Usage a, boom, c;
  a.request_id = "a";
  boom.request_id = "boom";
  c.request_id = "c";
  std::vector<mgw_usage_record> records{a.record(), boom.record(), c.record()};
  mgw::testing::TextRecorder error;
  EXPECT_EQ(h().on_usage_insert(storage(), records.data(), records.size(), &error.sink), MGW_INTERNAL);
  EXPECT_THAT(error.text, HasSubstr("boom refused"));
  EXPECT_EQ(query({}), Ids{}) << "the record before the failing one must be rolled back";
  // The writer is usable again afterwards (the transaction was closed).
  insert_usage(storage(), {a, c});
  EXPECT_EQ(query({}).size(), 2u);
}

TEST_P(UsageTest, EmptyBatchIsOk) {
  EXPECT_EQ(h().on_usage_insert(storage(), nullptr, 0, nullptr), MGW_OK);
  EXPECT_EQ(query({}), Ids{});
}

TEST_P(UsageTest, RecordsUseTheHostsStride) {
  // A host built against a newer minor version sends bigger records; the
  // array's stride is their struct_size, not this plugin's sizeof.
  struct Bigger {
    mgw_usage_record base;
    int64_t added_in_a_later_minor;
  };
  Usage first, second;
  first.request_id = "first";
  first.created_unix_ms = 1;
  second.request_id = "second";
  second.created_unix_ms = 2;
  Bigger records[2] = {{first.record(), -1}, {second.record(), -1}};
  for (auto& r : records) r.base.struct_size = sizeof(Bigger);
  ASSERT_EQ(h().on_usage_insert(storage(), &records[0].base, 2, nullptr), MGW_OK);
  EXPECT_EQ(query({}), (Ids{"second", "first"}));
}

TEST_P(UsageTest, RecordsFromAOnePointZeroHostHaveNoPrompt) {
  // ABI 1.0 records end at created_unix_ms: the prompt fields are absent, and
  // whatever lies past struct_size must not be read as them.
  constexpr std::size_t kV1Size = offsetof(mgw_usage_record, created_unix_ms) + sizeof(int64_t);
  struct alignas(mgw_usage_record) V1Array {
    unsigned char bytes[2][kV1Size];
  } records{};
  Usage u;
  u.request_id = "old-host";
  u.prompt_name = "must-not-be-read";
  u.prompt_version = 9;
  u.pii_action = "must-not-be-read";
  auto full = u.record();
  full.struct_size = kV1Size;
  std::memcpy(records.bytes[0], &full, kV1Size);
  ASSERT_EQ(
      h().on_usage_insert(storage(), reinterpret_cast<const mgw_usage_record*>(records.bytes[0]), 1, nullptr),
      MGW_OK);
  RowRecorder rows;
  mgw_usage_query q{};
  q.struct_size = sizeof q;
  ASSERT_EQ(h().on_usage_query(storage(), &q, &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.usage.size(), 1u);
  EXPECT_EQ(rows.usage[0].prompt_name, "");
  EXPECT_EQ(rows.usage[0].prompt_version, 0);
  EXPECT_EQ(rows.usage[0].pii_action, "");
}

TEST_P(UsageTest, RecordsFromAHostBeforeThePiiFieldsHaveNoPiiSummary) {
  // Records that end at prompt_version (before the PII fields were added).
  constexpr std::size_t kSize = offsetof(mgw_usage_record, prompt_version) + sizeof(int64_t);
  struct alignas(mgw_usage_record) Array {
    unsigned char bytes[kSize];
  } records{};
  Usage u;
  u.request_id = "prompt-era-host";
  u.prompt_name = "p";
  u.prompt_version = 2;
  u.pii_action = "must-not-be-read";
  u.pii_findings = "must-not-be-read";
  auto full = u.record();
  full.struct_size = kSize;
  std::memcpy(records.bytes, &full, kSize);
  ASSERT_EQ(
      h().on_usage_insert(storage(), reinterpret_cast<const mgw_usage_record*>(records.bytes), 1, nullptr),
      MGW_OK);
  RowRecorder rows;
  mgw_usage_query q{};
  q.struct_size = sizeof q;
  ASSERT_EQ(h().on_usage_query(storage(), &q, &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.usage.size(), 1u);
  EXPECT_EQ(rows.usage[0].prompt_version, 2);
  EXPECT_EQ(rows.usage[0].pii_action, "");
  EXPECT_EQ(rows.usage[0].pii_findings, "");
}

TEST_P(UsageTest, TraceIdRoundTripsThroughEveryRead) {
  Usage u;
  u.request_id = "req_traced";
  u.tenant_id = 3;
  u.created_unix_ms = 1700000000000;
  u.trace_id = "0af7651916cd43dd8448eb211c80319c";
  insert_usage(storage(), {u});
  RowRecorder by_query;
  mgw_usage_query q{};
  q.struct_size = sizeof q;
  q.request_id = mgw::str("req_traced");
  ASSERT_EQ(h().on_usage_query(storage(), &q, &by_query.sink, nullptr), MGW_OK);
  ASSERT_EQ(by_query.usage.size(), 1u);
  EXPECT_EQ(by_query.usage[0].trace_id, u.trace_id);
  // GET /v1/usage reads through on_usage_page, a separate SELECT.
  RowRecorder by_page;
  mgw_usage_filter f{};
  f.struct_size = sizeof f;
  f.tenant_id = 3;
  f.stream = -1;
  f.limit = 10;
  ASSERT_EQ(h().on_usage_page(storage(), &f, &by_page.sink, nullptr), MGW_OK);
  ASSERT_EQ(by_page.usage.size(), 1u);
  EXPECT_EQ(by_page.usage[0].trace_id, u.trace_id);
}

TEST_P(UsageTest, RecordsFromAHostBeforeTraceIdsHaveNone) {
  // Records of ABI 1.5, which end at charge_count.
  constexpr std::size_t kSize = MGW_USAGE_RECORD_SIZE_1_2;
  struct alignas(mgw_usage_record) Array {
    unsigned char bytes[kSize];
  } records{};
  Usage u;
  u.request_id = "pre-trace-host";
  u.reason = "kept";
  u.trace_id = "must-not-be-read";
  auto full = u.record();
  full.struct_size = kSize;
  std::memcpy(records.bytes, &full, kSize);
  ASSERT_EQ(
      h().on_usage_insert(storage(), reinterpret_cast<const mgw_usage_record*>(records.bytes), 1, nullptr),
      MGW_OK);
  RowRecorder rows;
  mgw_usage_query q{};
  q.struct_size = sizeof q;
  ASSERT_EQ(h().on_usage_query(storage(), &q, &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.usage.size(), 1u);
  EXPECT_EQ(rows.usage[0].reason, "kept");
  EXPECT_EQ(rows.usage[0].trace_id, "");
}

TEST_P(UsageTest, MismatchedStructSizesAreRefused) {
  Usage u;
  u.request_id = "x";
  std::vector<mgw_usage_record> records{u.record(), u.record()};
  records[1].struct_size = 8;
  mgw::testing::TextRecorder error;
  EXPECT_EQ(h().on_usage_insert(storage(), records.data(), records.size(), &error.sink),
            MGW_INVALID_ARGUMENT);
  EXPECT_THAT(error.text, HasSubstr("records[1]"));
  EXPECT_EQ(query({}), Ids{});
}

INSTANTIATE_TEST_SUITE_P(Backends, UsageTest, MGW_STORAGE_BACKENDS);

}  // namespace
}  // namespace storage_test
