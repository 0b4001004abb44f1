// GET /v1/usage's page query, exactly as the postgres plugin builds it
// (usage_sql.h), asked of PostgreSQL's planner on a migrated schema with
// statistics: a filter by model, feature or key uses an index that starts
// with the tenant and that column and is ordered by id, so a page reads only
// the records it matches and is never sorted after reading.
#include <algorithm>
#include <string>

#include "postgres_fixture.h"
#include "usage_sql.h"

namespace storage_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class PostgresUsagePlanTest : public PostgresTest {
 protected:
  void SetUp() override {
    PostgresTest::SetUp();
    storage_ = open();  // migrates the schema
    // One tenant, 20,000 records: nearly all of one model, feature and key,
    // a handful of others. Statistics make the planner choose as it would
    // on a busy tenant.
    db().admin().exec(
        "INSERT INTO " + table() +
        " (request_id, tenant_id, key_id, alias, provider, upstream_model, prompt_tokens, "
        "completion_tokens, total_tokens, http_status, error_code, latency_us, ttft_us, streamed, "
        "created_unix_ms, feature) "
        "SELECT 'r' || i, 1, CASE WHEN i % 2000 = 0 THEN 7 ELSE 1 END, "
        "CASE WHEN i % 2000 = 0 THEN 'rare' ELSE 'busy' END, 'openai', 'm', 1, 1, 2, 200, '', 1, 1, 0, "
        "1000 + i, CASE WHEN i % 2000 = 0 THEN 'search' ELSE 'chat' END "
        "FROM generate_series(1, 20000) AS i");
    db().admin().exec("ANALYZE " + table());
  }

  std::string table() const { return quote_ident(db().schema()) + ".usage_records"; }

  // The plan of `q`, its placeholders replaced by their values as literals
  // (from the highest number down, so $1 does not match inside $10).
  std::string plan(const mgw_pg::UsageQuery& q) {
    std::string sql = q.sql;
    for (std::size_t i = q.params.size(); i >= 1; --i) {
      const std::string placeholder = "$" + std::to_string(i);
      for (auto at = sql.find(placeholder); at != std::string::npos; at = sql.find(placeholder))
        sql.replace(at, placeholder.size(), quote_literal(q.params[i - 1]));
    }
    db().admin().exec("SET search_path TO " + quote_ident(db().schema()));
    const auto lines = db().admin().column("EXPLAIN " + sql);
    std::string joined;
    for (const auto& line : lines) joined.append(line).append("\n");
    return joined;
  }

  static mgw_usage_filter page_filter() {
    mgw_usage_filter f{};
    f.struct_size = sizeof f;
    f.tenant_id = 1;
    f.stream = -1;
    f.limit = 50;
    return f;
  }

  std::unique_ptr<Storage> storage_;
};

TEST_F(PostgresUsagePlanTest, AFilterByModelFeatureOrKeyUsesAnIndexOnThatColumn) {
  auto by_model = page_filter();
  const std::string model_plan = plan(mgw_pg::usage_page_query(by_model, "rare", ""));
  EXPECT_THAT(model_plan, HasSubstr("usage_records_tenant_alias")) << model_plan;

  auto by_feature = page_filter();
  by_feature.has_feature = 1;
  const std::string feature_plan = plan(mgw_pg::usage_page_query(by_feature, "", "search"));
  EXPECT_THAT(feature_plan, HasSubstr("usage_records_tenant_feature")) << feature_plan;

  auto by_key = page_filter();
  by_key.key_id = 7;
  const std::string key_plan = plan(mgw_pg::usage_page_query(by_key, "", ""));
  EXPECT_THAT(key_plan, HasSubstr("usage_records_tenant_key")) << key_plan;

  auto ranged = by_model;
  ranged.from_unix_ms = 1;
  ranged.to_unix_ms = 1'000'000;
  ranged.before_seq = 15'000;
  const std::string ranged_plan = plan(mgw_pg::usage_page_query(ranged, "rare", ""));
  EXPECT_THAT(ranged_plan, HasSubstr("usage_records_tenant_alias")) << ranged_plan;

  for (const auto* p : {&model_plan, &feature_plan, &key_plan, &ranged_plan}) {
    EXPECT_THAT(*p, Not(HasSubstr("Seq Scan"))) << *p;
    EXPECT_THAT(*p, Not(HasSubstr("Sort"))) << "a page must come off the index in id order:\n" << *p;
  }
}

}  // namespace
}  // namespace storage_test
