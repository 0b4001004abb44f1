// GET /v1/usage's two reads: a page of one tenant's records (newest first by
// id, the insertion order every process shares) and sums over a filter. Sums
// read the hourly rollups for the whole hours of the range and the records
// only for the partial hours at its edges, so their cost does not grow with
// the tenant's history.
#include <modelgw/sdk.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "rows.h"
#include "storage.h"
#include "usage_rows.h"
#include "usage_sql.h"

namespace mgw_pg {
namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

struct Filter {
  mgw_usage_filter f;
  std::string model, feature, group_by, operation;
};

Filter check_filter(const mgw_usage_filter* in) {
  if (in == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "filter: NULL");
  Filter out{read_growable(*in), {}, {}, {}, {}};
  out.model = text_arg(out.f.model, "model");
  out.operation = text_arg(out.f.operation, "operation");  // ABI 1.8: empty (any) from an older host
  out.feature = text_arg(out.f.feature, "feature");
  out.group_by = text_arg(out.f.group_by, "group_by");
  if (out.f.tenant_id < 0) throw Failure(MGW_INVALID_ARGUMENT, "tenant_id: must not be negative");
  return out;
}

using Query = UsageQuery;

pqxx::result run(const Query& q, pqxx::transaction_base& tx) {
  return tx.exec_params(q.sql, pqxx::prepare::make_dynamic_params(q.params));
}

void conditions(Query& q, const Filter& f) {
  usage_conditions(q, f.f, f.model, f.feature, f.operation);
}

struct Sums {
  std::int64_t requests = 0, prompt = 0, completion = 0, total = 0, cost = 0;
};

// The grouping column (SQL) over each table.
struct Grouping {
  const char* rollup;   // over usage_rollup_hour
  const char* records;  // over usage_records
};

Grouping grouping_of(std::string_view group_by) {
  if (group_by.empty()) return {"''", "''"};
  if (group_by == "hour") return {"hour_start", "created_unix_ms - (created_unix_ms % 3600000)"};
  if (group_by == "day")
    return {"hour_start - (hour_start % 86400000)", "created_unix_ms - (created_unix_ms % 86400000)"};
  if (group_by == "model") return {"alias", "alias"};
  if (group_by == "feature") return {"feature", "feature"};
  if (group_by == "key") return {"key_id", "key_id"};
  throw Failure(MGW_INVALID_ARGUMENT, "group_by: must be empty, hour, day, model, feature or key");
}

// Adds the sums of one SELECT (key, requests, prompt, completion, total, cost).
void collect(const pqxx::result& rows, std::map<std::string, Sums>& groups) {
  for (const auto& row : rows) {
    Sums& g = groups[row[0].as<std::string>()];
    g.requests += int64_of(row[1]);
    g.prompt += int64_of(row[2]);
    g.completion += int64_of(row[3]);
    g.total += int64_of(row[4]);
    g.cost += int64_of(row[5]);
  }
}

std::int64_t hour_ceil(std::int64_t ms) {
  const std::int64_t r = ((ms % kHourMs) + kHourMs) % kHourMs;
  return r == 0 ? ms : ms - r + kHourMs;
}
std::int64_t hour_floor(std::int64_t ms) {
  return ms - (((ms % kHourMs) + kHourMs) % kHourMs);
}

}  // namespace

mgw_status usage_page(mgw_storage* storage, const mgw_usage_filter* filter, const mgw_row_sink* out,
                      const mgw_text_sink* error) noexcept {
  return guarded(error, "usage page", [&] {
    auto& db = database_of(storage);
    const Filter f = check_filter(filter);
    if (f.f.limit < 1 || f.f.limit > 1000) throw Failure(MGW_INVALID_ARGUMENT, "limit: must be 1 to 1000");
    const Query q = usage_page_query(f.f, f.model, f.feature, f.operation);
    auto rows = db.read([&](pqxx::transaction_base& tx) { return run(q, tx); });
    emit_usage(rows, out);
    return MGW_OK;
  });
}

mgw_status usage_totals(mgw_storage* storage, const mgw_usage_filter* filter, const mgw_row_sink* out,
                        const mgw_text_sink* error) noexcept {
  return guarded(error, "usage totals", [&] {
    auto& db = database_of(storage);
    const Filter f = check_filter(filter);
    const Grouping g = grouping_of(f.group_by);
    const std::int64_t from = f.f.from_unix_ms != 0 ? f.f.from_unix_ms : kMin;
    const std::int64_t to = f.f.to_unix_ms != 0 ? f.f.to_unix_ms : kMax;
    std::map<std::string, Sums> groups;
    if (from < to) {
      // Whole hours [a, b) from the rollups; the edges [from, a) and [b, to)
      // from the records (at most an hour each, through the tenant/time index).
      const std::int64_t a = from == kMin ? kMin : hour_ceil(from);
      const std::int64_t b = to == kMax ? kMax : hour_floor(to);
      auto records = [&](std::int64_t lo, std::int64_t hi) {
        Query q;
        q.text(std::string("SELECT CAST(") + g.records +
               " AS TEXT), COUNT(*), SUM(prompt_tokens)::BIGINT, SUM(completion_tokens)::BIGINT, "
               "SUM(total_tokens)::BIGINT, SUM(cost_micros)::BIGINT FROM usage_records WHERE ");
        conditions(q, f);
        q.bind(" AND created_unix_ms >= ", lo).bind(" AND created_unix_ms < ", hi).text(" GROUP BY 1");
        return q;
      };
      std::vector<Query> queries;
      if (a < b) {
        Query q;
        q.text(
            std::string("SELECT CAST(") + g.rollup +
            " AS TEXT), SUM(requests)::BIGINT, SUM(prompt_tokens)::BIGINT, SUM(completion_tokens)::BIGINT, "
            "SUM(total_tokens)::BIGINT, SUM(cost_micros)::BIGINT FROM usage_rollup_hour WHERE ");
        conditions(q, f);
        q.bind(" AND hour_start >= ", a).bind(" AND hour_start < ", b).text(" GROUP BY 1");
        queries.push_back(std::move(q));
        if (from < a) queries.push_back(records(from, a));
        if (b < to) queries.push_back(records(b, to));
      } else {
        queries.push_back(records(from, to));  // within one hour
      }
      // One snapshot for all of them: a record counts in exactly one.
      auto results = db.read_snapshot([&](pqxx::transaction_base& tx) {
        std::vector<pqxx::result> rs;
        for (const auto& q : queries) rs.push_back(run(q, tx));
        return rs;
      });
      for (const auto& rows : results) collect(rows, groups);
    }
    if (out == nullptr ||
        out->struct_size < offsetof(mgw_row_sink, callback_usage_group) + sizeof(out->callback_usage_group) ||
        out->callback_usage_group == nullptr) {
      return MGW_OK;
    }
    // Numeric keys (hours, days, key ids) in numeric order.
    std::vector<std::pair<std::string, Sums>> rows(groups.begin(), groups.end());
    const bool numeric = f.group_by == "hour" || f.group_by == "day" || f.group_by == "key";
    if (numeric) {
      std::sort(rows.begin(), rows.end(),
                [](const auto& x, const auto& y) { return std::stoll(x.first) < std::stoll(y.first); });
    }
    if (f.group_by.empty() && rows.empty()) rows.emplace_back("", Sums{});
    for (const auto& [key, sums] : rows) {
      mgw_usage_group row{};
      row.struct_size = sizeof row;
      row.key = mgw::str(key);
      row.requests = sums.requests;
      row.prompt_tokens = sums.prompt;
      row.completion_tokens = sums.completion;
      row.total_tokens = sums.total;
      row.cost_micros = sums.cost;
      out->callback_usage_group(out->host_data, &row);
    }
    return MGW_OK;
  });
}

}  // namespace mgw_pg
