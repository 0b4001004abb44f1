#include "usage_sql.h"

#include "usage_rows.h"

namespace mgw_sqlite {

std::string usage_conditions(const mgw_usage_filter& f, bool has_model) {
  std::string sql = "tenant_id = ?1";
  if (has_model) sql += " AND alias = ?2";
  if (f.has_feature != 0) sql += " AND feature = ?3";
  if (f.key_id != 0) sql += " AND key_id = ?4";
  if (f.status_min != 0 || f.status_max != 0) sql += " AND http_status BETWEEN ?5 AND ?6";
  if (f.stream == 0 || f.stream == 1) sql += " AND streamed = ?7";
  if (f.operation.len != 0) sql += " AND operation = ?12";
  return sql;
}

bool pages_by_id_ranges(const mgw_usage_filter& f, bool has_model) {
  return has_model || f.has_feature != 0 || f.key_id != 0;
}

std::string usage_rollup_id_ranges_sql(const mgw_usage_filter& f, bool has_model) {
  // Groups whose hour overlaps the time range: a record's group is the hour
  // its created_unix_ms falls in. Highest ids first.
  std::string sql = "SELECT min_id, max_id FROM usage_rollup_hour WHERE " + usage_conditions(f, has_model) +
                    " AND max_id > 0";
  if (f.from_unix_ms != 0) sql += " AND hour_start > ?8 - 3600000";
  if (f.to_unix_ms != 0) sql += " AND hour_start < ?9";
  // ?11, bound to -1 (no limit), puts every placeholder up to it in range.
  sql += " ORDER BY max_id DESC LIMIT ?11";
  return sql;
}

std::string usage_posting_ranges_sql(const mgw_usage_filter& f) {
  // One filter column leads (a key, a feature or a model: likely the
  // rarest first); the page's own conditions apply the others. Its
  // postings come off their primary key newest first, unsorted.
  std::string sql = "SELECT min_id, max_id FROM usage_postings WHERE tenant_id = ?1 AND ";
  if (f.key_id != 0) {
    sql += "kind = " + std::to_string(kPostingKey) + " AND value = CAST(?4 AS TEXT)";
  } else if (f.has_feature != 0) {
    sql += "kind = " + std::to_string(kPostingFeature) + " AND value = ?3";
  } else {
    sql += "kind = " + std::to_string(kPostingModel) + " AND value = ?2";
  }
  if (f.before_seq != 0) sql += " AND min_id < ?10";
  sql += " ORDER BY max_id DESC LIMIT ?11";
  return sql;
}

std::string usage_page_sql(const mgw_usage_filter& f, bool has_model) {
  // Walk the tenant's records from the newest (the index on (tenant_id, id),
  // or the rowid within an id range) and stop at the limit. A filter by
  // model, feature or key reads one id range at a time, those its postings
  // hold (?13, ?14: usage_posting_ranges_sql), so it reads the batches it
  // matches, not every record of the tenant. The unary '+' keeps SQLite from
  // ranging over created_unix_ms instead and sorting every record of the
  // range (a second over a month of a busy tenant). A `to` far in the past
  // walks the records after it.
  std::string sql =
      "SELECT " MGW_USAGE_SELECT_COLUMNS " FROM usage_records WHERE " + usage_conditions(f, has_model);
  if (pages_by_id_ranges(f, has_model)) sql += " AND id BETWEEN ?13 AND ?14";
  if (f.from_unix_ms != 0) sql += " AND +created_unix_ms >= ?8";
  if (f.to_unix_ms != 0) sql += " AND +created_unix_ms < ?9";
  if (f.before_seq != 0) sql += " AND id < ?10";
  sql += " ORDER BY id DESC LIMIT ?11";
  return sql;
}

}  // namespace mgw_sqlite
