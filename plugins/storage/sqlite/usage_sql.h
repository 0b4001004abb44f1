// The SQL text of GET /v1/usage's reads, apart from running it, so that a test
// can ask SQLite's planner about exactly what runs (usage_plan_test.cpp in
// tests/plugins/storage_sqlite). Placeholders: ?1 tenant, ?2 model, ?3
// feature, ?4 key, ?5/?6 status range, ?7 stream, ?8/?9 time range, ?10
// before id, ?11 limit, ?12 operation (present only when filtered by, so a
// caller binds it only then), ?13/?14 an id range (a page filtered by model,
// feature or key).
#pragma once

#include <modelgw/plugin.h>

#include <string>

namespace mgw_sqlite {

// WHERE conditions on the columns records and rollups share (?1 to ?7, ?12).
std::string usage_conditions(const mgw_usage_filter& f, bool has_model);

// Whether a page is read one id range at a time: filtered by model, feature
// or key, which no index on the records serves (migration 13).
bool pages_by_id_ranges(const mgw_usage_filter& f, bool has_model);

// The id ranges (min_id, max_id) of the hourly rollup groups that match the
// filter and its time range, highest first; ?11 bound to -1. Totals read
// the records of a range's partial hours by them.
std::string usage_rollup_id_ranges_sql(const mgw_usage_filter& f, bool has_model);

// The id ranges of the batches that hold records of the page's filter
// column (its key, else its feature, else its model), highest first; none
// above the cursor ?10; ?11 bound to -1.
std::string usage_posting_ranges_sql(const mgw_usage_filter& f);

// One page of a tenant's records, newest first by id: with
// pages_by_id_ranges, of the records in the id range ?13 to ?14.
std::string usage_page_sql(const mgw_usage_filter& f, bool has_model);

}  // namespace mgw_sqlite
