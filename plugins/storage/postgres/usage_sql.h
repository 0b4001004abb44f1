// The SQL of GET /v1/usage's reads, apart from running it (and from libpqxx),
// so that a test can ask PostgreSQL's planner about exactly what runs
// (postgres_usage_plan_test.cpp in tests/plugins/storage_conformance).
#pragma once

#include <modelgw/plugin.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mgw_pg {

// A statement's text and the values of its placeholders, numbered as added:
// PostgreSQL must infer a type for every placeholder, so only used ones exist.
struct UsageQuery {
  std::string sql;
  std::vector<std::string> params;

  // Appends `prefix` and a placeholder bound to `value`.
  UsageQuery& bind(std::string_view prefix, std::string value);
  UsageQuery& bind(std::string_view prefix, std::int64_t value) {
    return bind(prefix, std::to_string(value));
  }
  UsageQuery& text(std::string_view more) {
    sql.append(more);
    return *this;
  }
};

// Appends the WHERE conditions on the columns records and rollups share; the
// caller adds its time range and the rest. `model`, `feature` and
// `operation` are the filter's texts, already checked.
void usage_conditions(UsageQuery& q, const mgw_usage_filter& f, std::string_view model,
                      std::string_view feature, std::string_view operation = {});

// One page of a tenant's records, newest first by id.
UsageQuery usage_page_query(const mgw_usage_filter& f, std::string_view model, std::string_view feature,
                            std::string_view operation = {});

}  // namespace mgw_pg
