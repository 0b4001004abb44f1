// GET /v1/usage's reads, exactly as the plugin builds them (usage_sql.h),
// asked of SQLite's planner on a migrated file: a filter by model, feature or
// key walks its postings newest first, then reads each posting's id range off
// an index (migration 13: no index per filter column, which every record paid
// for), so a filter reads only the batches it matches; the rollups' id ranges
// come from the rollups alone; and no page is sorted after reading.
#include "test_support.h"
#include "usage_sql.h"

namespace sqlite_test {
namespace {

using mgw_sqlite::pages_by_id_ranges;
using mgw_sqlite::usage_page_sql;
using mgw_sqlite::usage_posting_ranges_sql;
using mgw_sqlite::usage_rollup_id_ranges_sql;
using ::testing::HasSubstr;
using ::testing::Not;

class UsagePlanTest : public StorageTest {
 protected:
  void SetUp() override {
    Storage storage(db_path());  // migrates the file to the current schema
  }

  // The planner's lines for `sql`, joined by '\n'.
  std::string plan(const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(db_path().c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    std::string lines;
    if (sqlite3_prepare_v2(db, ("EXPLAIN QUERY PLAN " + sql).c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << sqlite3_errmsg(db) << ": " << sql;
    } else {
      while (sqlite3_step(stmt) == SQLITE_ROW)
        lines.append(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 3))).append("\n");
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return lines;
  }

  static mgw_usage_filter page_filter() {
    mgw_usage_filter f{};
    f.struct_size = sizeof f;
    f.tenant_id = 1;
    f.stream = -1;
    f.limit = 50;
    return f;
  }
};

TEST_F(UsagePlanTest, AFilterByModelFeatureOrKeyWalksItsPostingsThenReadsEachRangeOffAnIndex) {
  auto by_model = page_filter();
  by_model.model = mgw::str("gpt-4o");
  auto by_feature = page_filter();
  by_feature.has_feature = 1;
  by_feature.feature = mgw::str("search");
  auto by_key = page_filter();
  by_key.key_id = 7;
  // With a time range and a cursor too.
  auto ranged = by_model;
  ranged.from_unix_ms = 1;
  ranged.to_unix_ms = 2;
  ranged.before_seq = 100;
  for (const auto& [f, has_model] :
       {std::pair{by_model, true}, {by_feature, false}, {by_key, false}, {ranged, true}}) {
    ASSERT_TRUE(pages_by_id_ranges(f, has_model));
    const std::string postings = plan(usage_posting_ranges_sql(f));
    EXPECT_THAT(postings,
                HasSubstr("SEARCH usage_postings USING PRIMARY KEY (tenant_id=? AND kind=? AND value=?"))
        << postings;
    EXPECT_THAT(postings, Not(HasSubstr("TEMP B-TREE"))) << "newest first off the key, unsorted:\n"
                                                         << postings;
    const std::string ranges = plan(usage_rollup_id_ranges_sql(f, has_model));
    EXPECT_THAT(ranges, HasSubstr("usage_rollup_hour")) << ranges;
    EXPECT_THAT(ranges, Not(HasSubstr("usage_records"))) << "the ranges come from the rollups alone:\n"
                                                         << ranges;
    const std::string page = plan(usage_page_sql(f, has_model));
    EXPECT_THAT(page, HasSubstr("SEARCH usage_records")) << page;
    EXPECT_THAT(page, Not(HasSubstr("SCAN usage_records"))) << "a range, not every record:\n" << page;
    EXPECT_THAT(page, Not(HasSubstr("TEMP B-TREE"))) << "a page must come off the index in id order:\n"
                                                     << page;
  }
  // Unfiltered (or by status, stream, operation alone): the tenant's records by id.
  const auto plain = page_filter();
  EXPECT_FALSE(pages_by_id_ranges(plain, false));
  const std::string p = plan(usage_page_sql(plain, false));
  EXPECT_THAT(p, HasSubstr("INDEX usage_records_tenant_id (tenant_id=?)")) << p;
  EXPECT_THAT(p, Not(HasSubstr("TEMP B-TREE"))) << p;
}

TEST_F(UsagePlanTest, WithStatisticsARareModelStillReadsARange) {
  // One model has nearly every record of the tenant: after ANALYZE the
  // planner knows, and a page of the rare one must still read its range,
  // not every record.
  {
    RawDb raw(db_path());
    raw.exec("BEGIN");
    for (int i = 1; i <= 4000; ++i) {
      const std::string alias = i % 1000 == 0 ? "rare" : "busy";
      raw.exec(
          "INSERT INTO usage_records (request_id, tenant_id, key_id, alias, provider, upstream_model, "
          "prompt_tokens, completion_tokens, total_tokens, http_status, error_code, latency_us, ttft_us, "
          "streamed, created_unix_ms) VALUES ('r" +
          std::to_string(i) + "', 1, 1, '" + alias + "', 'openai', 'm', 1, 1, 2, 200, '', 1, 1, 0, " +
          std::to_string(1000 + i) + ")");
    }
    raw.exec("COMMIT");
    raw.exec("ANALYZE");
  }
  auto f = page_filter();
  f.model = mgw::str("rare");
  const std::string p = plan(usage_page_sql(f, true));
  EXPECT_THAT(p, HasSubstr("SEARCH usage_records")) << p;
  EXPECT_THAT(p, Not(HasSubstr("SCAN usage_records"))) << p;
  EXPECT_THAT(p, Not(HasSubstr("TEMP B-TREE"))) << p;
}

}  // namespace
}  // namespace sqlite_test
