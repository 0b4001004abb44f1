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

std::string usage_page_sql(const mgw_usage_filter& f, bool has_model) {
  // Walk an index on (tenant_id[, alias | feature | key_id], id) from the
  // newest record and stop at the limit: a filter reads only the records it
  // matches (migration 9). The unary '+' keeps SQLite from ranging over
  // created_unix_ms instead and sorting every record of the range (a second
  // over a month of a busy tenant). A `to` far in the past walks the records
  // after it.
  std::string sql =
      "SELECT " MGW_USAGE_SELECT_COLUMNS " FROM usage_records WHERE " + usage_conditions(f, has_model);
  if (f.from_unix_ms != 0) sql += " AND +created_unix_ms >= ?8";
  if (f.to_unix_ms != 0) sql += " AND +created_unix_ms < ?9";
  if (f.before_seq != 0) sql += " AND id < ?10";
  sql += " ORDER BY id DESC LIMIT ?11";
  return sql;
}

}  // namespace mgw_sqlite
