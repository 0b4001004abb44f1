#include "usage_sql.h"

#include "usage_columns.h"

namespace mgw_pg {

UsageQuery& UsageQuery::bind(std::string_view prefix, std::string value) {
  params.push_back(std::move(value));
  sql.append(prefix).append("$").append(std::to_string(params.size()));
  return *this;
}

void usage_conditions(UsageQuery& q, const mgw_usage_filter& f, std::string_view model,
                      std::string_view feature, std::string_view operation) {
  q.bind("tenant_id = ", f.tenant_id);
  if (!model.empty()) q.bind(" AND alias = ", std::string(model));
  if (f.has_feature != 0) q.bind(" AND feature = ", std::string(feature));
  if (f.key_id != 0) q.bind(" AND key_id = ", f.key_id);
  if (f.status_min != 0 || f.status_max != 0) {
    q.bind(" AND http_status BETWEEN ", std::int64_t{f.status_min});
    q.bind(" AND ", std::int64_t{f.status_max == 0 ? 999 : f.status_max});
  }
  if (f.stream == 0 || f.stream == 1) q.bind(" AND streamed = ", std::int64_t{f.stream});
  if (!operation.empty()) q.bind(" AND operation = ", std::string(operation));
}

UsageQuery usage_page_query(const mgw_usage_filter& f, std::string_view model, std::string_view feature,
                            std::string_view operation) {
  // Walks an index on (tenant_id[, alias | feature | key_id], id) from the
  // newest record and stops at the limit: a filter reads only the records it
  // matches (migration 4).
  UsageQuery q;
  q.text("SELECT " MGW_USAGE_SELECT_COLUMNS " FROM usage_records WHERE ");
  usage_conditions(q, f, model, feature, operation);
  if (f.from_unix_ms != 0) q.bind(" AND created_unix_ms >= ", f.from_unix_ms);
  if (f.to_unix_ms != 0) q.bind(" AND created_unix_ms < ", f.to_unix_ms);
  if (f.before_seq != 0) q.bind(" AND id < ", f.before_seq);
  q.bind(" ORDER BY id DESC LIMIT ", f.limit);
  return q;
}

}  // namespace mgw_pg
