// Usage records: batch insert (all or none) and query filters, order, limit.
#include "fixture.h"

#include <cstring>
#include <map>
#include <utility>

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
  u.operation = "responses";
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

TEST_P(UsageTest, OperationRoundTripsThroughEveryRead) {
  Usage responses;
  responses.request_id = "req_responses";
  responses.tenant_id = 3;
  responses.created_unix_ms = 1700000000000;
  responses.operation = "responses";
  Usage unnamed;  // an empty operation is chat completions
  unnamed.request_id = "req_unnamed";
  unnamed.tenant_id = 3;
  unnamed.created_unix_ms = 1700000000001;
  unnamed.operation = "";
  insert_usage(storage(), {responses, unnamed});
  RowRecorder by_query;
  mgw_usage_query q{};
  q.struct_size = sizeof q;
  ASSERT_EQ(h().on_usage_query(storage(), &q, &by_query.sink, nullptr), MGW_OK);
  ASSERT_EQ(by_query.usage.size(), 2u);
  EXPECT_EQ(by_query.usage[0].operation, "chat.completions");
  EXPECT_EQ(by_query.usage[1].operation, "responses");
  // GET /v1/usage reads through on_usage_page, a separate SELECT.
  RowRecorder by_page;
  mgw_usage_filter f{};
  f.struct_size = sizeof f;
  f.tenant_id = 3;
  f.stream = -1;
  f.limit = 10;
  ASSERT_EQ(h().on_usage_page(storage(), &f, &by_page.sink, nullptr), MGW_OK);
  ASSERT_EQ(by_page.usage.size(), 2u);
  EXPECT_EQ(by_page.usage[0].operation, "chat.completions");
  EXPECT_EQ(by_page.usage[1].operation, "responses");
}

TEST_P(UsageTest, RecordsFromAHostBeforeOperationsAreChatCompletions) {
  // Records of ABI 1.7, which end at trace_id.
  constexpr std::size_t kSize = MGW_USAGE_RECORD_SIZE_1_6;
  struct alignas(mgw_usage_record) Array {
    unsigned char bytes[2][kSize];
  } records{};
  Usage first, second;
  first.request_id = "pre-operation-1";
  second.request_id = "pre-operation-2";
  first.trace_id = "0af7651916cd43dd8448eb211c80319c";
  first.created_unix_ms = 1;
  second.created_unix_ms = 2;
  first.operation = second.operation = "must-not-be-read";
  auto a = first.record(), b = second.record();
  a.struct_size = b.struct_size = kSize;
  std::memcpy(records.bytes[0], &a, kSize);
  std::memcpy(records.bytes[1], &b, kSize);  // the stride is the host's size
  ASSERT_EQ(
      h().on_usage_insert(storage(), reinterpret_cast<const mgw_usage_record*>(records.bytes), 2, nullptr),
      MGW_OK);
  RowRecorder rows;
  mgw_usage_query q{};
  q.struct_size = sizeof q;
  ASSERT_EQ(h().on_usage_query(storage(), &q, &rows.sink, nullptr), MGW_OK);
  ASSERT_EQ(rows.usage.size(), 2u);
  EXPECT_EQ(rows.usage[0].request_id, "pre-operation-2");
  EXPECT_EQ(rows.usage[0].operation, "chat.completions");
  EXPECT_EQ(rows.usage[1].trace_id, first.trace_id);
  EXPECT_EQ(rows.usage[1].operation, "chat.completions");
}

class UsageOperationTest : public UsageTest {
 protected:
  // Tenant 5: chat and responses records over three hours and at their
  // edges, so that totals read both the hourly rollups and the records.
  void SetUp() override {
    UsageTest::SetUp();
    std::vector<Usage> rows;
    for (int i = 0; i < 12; ++i) {
      Usage u;
      u.request_id = "op_" + std::to_string(i);
      u.tenant_id = 5;
      u.created_unix_ms = kStart + i * 15 * 60'000;  // every 15 minutes
      u.operation = i % 3 == 0 ? "responses" : "chat.completions";
      u.prompt_tokens = i + 1;
      u.total_tokens = i + 1;
      u.cost_micros = 100 * (i + 1);
      rows.push_back(u);
    }
    Usage other_tenant;
    other_tenant.request_id = "op_other";
    other_tenant.tenant_id = 6;
    other_tenant.created_unix_ms = kStart;
    other_tenant.operation = "responses";
    rows.push_back(other_tenant);
    insert_usage(storage(), rows);
  }

  static mgw_usage_filter filter(const std::string& operation) {
    mgw_usage_filter f{};
    f.struct_size = sizeof f;
    f.tenant_id = 5;
    f.stream = -1;
    f.limit = 100;
    f.operation = mgw::str(operation);  // views the caller's string, which outlives the filter
    return f;
  }

  Ids page(const mgw_usage_filter& f) {
    RowRecorder rows;
    mgw::testing::TextRecorder error;
    EXPECT_EQ(h().on_usage_page(storage(), &f, &rows.sink, &error.sink), MGW_OK) << error.text;
    Ids ids;
    for (const auto& u : rows.usage) ids.push_back(u.request_id);
    return ids;
  }

  // requests and cost, per group key.
  std::map<std::string, std::pair<int64_t, int64_t>> totals(const mgw_usage_filter& f) {
    RowRecorder rows;
    mgw::testing::TextRecorder error;
    EXPECT_EQ(h().on_usage_totals(storage(), &f, &rows.sink, &error.sink), MGW_OK) << error.text;
    std::map<std::string, std::pair<int64_t, int64_t>> out;
    for (const auto& g : rows.groups) out[g.key] = {g.requests, g.cost_micros};
    return out;
  }

  static constexpr int64_t kStart = 1'795'000'800'000;  // 20 minutes past an hour
};

TEST_P(UsageOperationTest, PageFiltersByOperation) {
  const std::string responses = "responses", chat = "chat.completions", none = "embeddings", any;
  EXPECT_EQ(page(filter(responses)), (Ids{"op_9", "op_6", "op_3", "op_0"}));
  EXPECT_EQ(page(filter(chat)), (Ids{"op_11", "op_10", "op_8", "op_7", "op_5", "op_4", "op_2", "op_1"}));
  EXPECT_EQ(page(filter(none)), Ids{});
  EXPECT_EQ(page(filter(any)).size(), 12u);
  // Combined with the other filters and the cursor.
  mgw_usage_filter before = filter(responses);
  before.limit = 2;
  const Ids first = page(before);
  ASSERT_EQ(first, (Ids{"op_9", "op_6"}));
  RowRecorder rows;
  ASSERT_EQ(h().on_usage_page(storage(), &before, &rows.sink, nullptr), MGW_OK);
  before.before_seq = rows.usage.back().seq;
  EXPECT_EQ(page(before), (Ids{"op_3", "op_0"}));
  mgw_usage_filter ranged = filter(chat);
  ranged.from_unix_ms = kStart + 60 * 60'000;
  ranged.to_unix_ms = kStart + 120 * 60'000;
  EXPECT_EQ(page(ranged), (Ids{"op_7", "op_5", "op_4"}));
}

TEST_P(UsageOperationTest, TotalsFilterByOperationOverRollupsAndEdges) {
  const std::string responses = "responses", chat = "chat.completions", none = "embeddings", any;
  // Records 0, 3, 6, 9: costs 100 + 400 + 700 + 1000.
  using Sums = std::map<std::string, std::pair<int64_t, int64_t>>;
  EXPECT_EQ(totals(filter(responses)), (Sums{{"", {4, 2200}}}));
  EXPECT_EQ(totals(filter(chat)), (Sums{{"", {8, 7800 - 2200}}}));
  EXPECT_EQ(totals(filter(any)), (Sums{{"", {12, 7800}}}));
  EXPECT_EQ(totals(filter(none)), (Sums{{"", {0, 0}}}));
  // A range of partial hours at both ends and whole hours between them.
  mgw_usage_filter ranged = filter(responses);
  ranged.from_unix_ms = kStart + 30 * 60'000;  // records 2..
  ranged.to_unix_ms = kStart + 150 * 60'000;   // ..9
  EXPECT_EQ(totals(ranged), (Sums{{"", {3, 400 + 700 + 1000}}}));
  ranged.operation = mgw::str(chat);
  EXPECT_EQ(totals(ranged), (Sums{{"", {5, 300 + 500 + 600 + 800 + 900}}}));
  // Grouped by hour: 20 past the first hour, so hours hold records 0-2,
  // 3-6, 7-10 and 11.
  mgw_usage_filter hourly = filter(responses);
  hourly.group_by = mgw::str("hour");
  const int64_t hour0 = kStart - 20 * 60'000;
  EXPECT_EQ(totals(hourly), (Sums{{std::to_string(hour0), {1, 100}},
                                  {std::to_string(hour0 + 3'600'000), {2, 400 + 700}},
                                  {std::to_string(hour0 + 7'200'000), {1, 1000}}}));
}

TEST_P(UsageOperationTest, AFilterFromAHostBeforeOperationsMatchesAny) {
  // A 1.7 host's filter ends at group_by: whatever follows is not read.
  const std::string responses = "responses";
  mgw_usage_filter f = filter(responses);
  f.struct_size = MGW_USAGE_FILTER_SIZE_1_2;
  EXPECT_EQ(page(f).size(), 12u);
  EXPECT_EQ(totals(f).at("").first, 12);
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
INSTANTIATE_TEST_SUITE_P(Backends, UsageOperationTest, MGW_STORAGE_BACKENDS);

}  // namespace
}  // namespace storage_test
