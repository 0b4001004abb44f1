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
#include "storage.h"
#include "usage_rows.h"
#include "usage_sql.h"

namespace mgw_sqlite {
namespace {

constexpr std::int64_t kHourMs = 3'600'000;
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

struct Filter {
  mgw_usage_filter f;
  std::string_view model, feature, group_by, operation;
};

Filter check_filter(const mgw_usage_filter* in) {
  if (in == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "filter: NULL");
  Filter out{read_growable(*in), {}, {}, {}, {}};
  out.model = bytes_arg(out.f.model, "model");
  out.operation = bytes_arg(out.f.operation, "operation");  // ABI 1.8: empty (any) from an older host
  out.feature = bytes_arg(out.f.feature, "feature");
  out.group_by = bytes_arg(out.f.group_by, "group_by");
  if (out.f.tenant_id < 0) throw Failure(MGW_INVALID_ARGUMENT, "tenant_id: must not be negative");
  return out;
}

std::string conditions(const Filter& q) {
  return usage_conditions(q.f, !q.model.empty());
}

void bind_conditions(Statement& s, const Filter& q) {
  s.bind(1, q.f.tenant_id);
  s.bind(2, q.model);
  s.bind(3, q.feature);
  s.bind(4, q.f.key_id);
  s.bind(5, std::int64_t{q.f.status_min});
  s.bind(6, std::int64_t{q.f.status_max == 0 ? 999 : q.f.status_max});
  s.bind(7, std::int64_t{q.f.stream});
  // Past the highest number every statement has: bound only when the
  // condition is there (SQLite refuses a placeholder the text lacks).
  if (!q.operation.empty()) s.bind(12, q.operation);
}

struct Sums {
  std::int64_t requests = 0, prompt = 0, completion = 0, total = 0, cost = 0;
};

// The grouping column (SQL) and the key of a row read back.
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
void collect(Statement& s, std::map<std::string, Sums>& groups) {
  while (s.step()) {
    Sums& g = groups[std::string(s.text(0))];
    g.requests += s.int64(1);
    g.prompt += s.int64(2);
    g.completion += s.int64(3);
    g.total += s.int64(4);
    g.cost += s.int64(5);
  }
}

std::int64_t hour_ceil(std::int64_t ms) {
  const std::int64_t r = ((ms % kHourMs) + kHourMs) % kHourMs;
  return r == 0 ? ms : ms - r + kHourMs;
}
std::int64_t hour_floor(std::int64_t ms) {
  return ms - (((ms % kHourMs) + kHourMs) % kHourMs);
}

// Reads `ranges` (rows of min_id, max_id, highest max_id first), merges
// those that overlap or touch, and calls read(lo, hi) for each merged range,
// highest first, until it returns false. A range is passed on only once no
// later row can reach into it: the rows come by max_id, so every row with
// ids in it has been merged.
template <typename Read>
void for_each_id_range(Statement& ranges, Read read) {
  std::int64_t lo = 0;
  std::int64_t hi = -1;  // none yet
  while (ranges.step()) {
    const std::int64_t min_id = ranges.int64(0);
    const std::int64_t max_id = ranges.int64(1);
    if (hi >= lo && max_id < lo - 1) {
      if (!read(lo, hi)) return;
      hi = -1;
    }
    if (hi < lo) {
      lo = min_id;
      hi = max_id;
    } else {
      lo = std::min(lo, min_id);
    }
  }
  if (hi >= lo) read(lo, hi);
}

// Binds a statement of rollup id ranges (usage_sql.h): `q`'s conditions and
// the time range [from, to).
void bind_rollup_id_ranges(Statement& ranges, const Filter& q, std::int64_t from, std::int64_t to) {
  bind_conditions(ranges, q);
  ranges.bind(8, from);
  ranges.bind(9, to);
  ranges.bind(11, -1);  // every range
}

}  // namespace

mgw_status usage_page(mgw_storage* storage, const mgw_usage_filter* filter, const mgw_row_sink* out,
                      const mgw_text_sink* error) noexcept {
  return guarded(error, "usage page", [&] {
    auto& db = database_of(storage);
    const Filter q = check_filter(filter);
    if (q.f.limit < 1 || q.f.limit > 1000) throw Failure(MGW_INVALID_ARGUMENT, "limit: must be 1 to 1000");
    const bool has_model = !q.model.empty();
    const std::string sql = usage_page_sql(q.f, has_model);
    return db.read([&](Connection& c) {
      auto select = c.statement(sql);
      auto bind_page = [&] {  // again after each reset, which clears the bindings
        bind_conditions(select, q);
        select.bind(8, q.f.from_unix_ms);
        select.bind(9, q.f.to_unix_ms);
        select.bind(10, q.f.before_seq);
      };
      if (!pages_by_id_ranges(q.f, has_model)) {
        bind_page();
        select.bind(11, q.f.limit);
        while (select.step()) emit_usage(select, out);
        return MGW_OK;
      }
      // Filtered by model, feature or key: the id ranges of the batches that
      // hold records of its leading filter column, newest first, each read
      // newest first until the page is full. Every matching record lies in
      // one of them.
      auto ranges = c.statement(usage_posting_ranges_sql(q.f));
      ranges.bind(1, q.f.tenant_id);
      ranges.bind(2, q.model);
      ranges.bind(3, q.feature);
      ranges.bind(4, q.f.key_id);
      ranges.bind(10, q.f.before_seq);
      ranges.bind(11, -1);  // every posting: the page stops reading when full
      std::int64_t left = q.f.limit;
      for_each_id_range(ranges, [&](std::int64_t lo, std::int64_t hi) {
        bind_page();
        select.bind(11, left);
        select.bind(13, lo);
        select.bind(14, hi);
        while (select.step()) {
          emit_usage(select, out);
          --left;
        }
        select.reset();
        return left > 0;
      });
      return MGW_OK;
    });
  });
}

mgw_status usage_totals(mgw_storage* storage, const mgw_usage_filter* filter, const mgw_row_sink* out,
                        const mgw_text_sink* error) noexcept {
  return guarded(error, "usage totals", [&] {
    auto& db = database_of(storage);
    const Filter q = check_filter(filter);
    const Grouping g = grouping_of(q.group_by);
    const std::int64_t from = q.f.from_unix_ms != 0 ? q.f.from_unix_ms : kMin;
    const std::int64_t to = q.f.to_unix_ms != 0 ? q.f.to_unix_ms : kMax;
    std::map<std::string, Sums> groups;
    if (from < to) {
      // Whole hours [a, b) from the rollups; the edges [from, a) and [b, to)
      // from the records of the hours they touch (one or two), found by those
      // hours' rollup id ranges (migration 13: no index on the records' time).
      const std::int64_t a = from == kMin ? kMin : hour_ceil(from);
      const std::int64_t b = to == kMax ? kMax : hour_floor(to);
      db.read([&](Connection& c) {
        const std::string where = conditions(q);
        const std::string sums =
            ", SUM(requests), SUM(prompt_tokens), SUM(completion_tokens), SUM(total_tokens), "
            "SUM(cost_micros)";
        const std::string record_sums =
            ", COUNT(*), SUM(prompt_tokens), SUM(completion_tokens), "
            "SUM(total_tokens), SUM(cost_micros)";
        auto records = [&](std::int64_t lo, std::int64_t hi) {
          if (lo >= hi) return;
          mgw_usage_filter edge = q.f;
          edge.from_unix_ms = lo;
          edge.to_unix_ms = hi;
          auto ranges = c.statement(usage_rollup_id_ranges_sql(edge, !q.model.empty()));
          bind_rollup_id_ranges(ranges, q, lo, hi);
          auto s = c.statement(std::string("SELECT CAST(") + g.records + " AS TEXT)" + record_sums +
                               " FROM usage_records WHERE " + where +
                               " AND id BETWEEN ?13 AND ?14 AND +created_unix_ms >= ?8 AND "
                               "+created_unix_ms < ?9 GROUP BY 1");
          for_each_id_range(ranges, [&](std::int64_t first, std::int64_t last) {
            bind_conditions(s, q);
            s.bind(8, lo);
            s.bind(9, hi);
            s.bind(13, first);
            s.bind(14, last);
            collect(s, groups);
            s.reset();
            return true;
          });
        };
        if (a < b) {
          auto s = c.statement(std::string("SELECT CAST(") + g.rollup + " AS TEXT)" + sums +
                               " FROM usage_rollup_hour WHERE " + where +
                               " AND hour_start >= ?8 AND hour_start < ?9 GROUP BY 1");
          bind_conditions(s, q);
          s.bind(8, a);
          s.bind(9, b);
          collect(s, groups);
          records(from, a);
          records(b, to);
        } else {
          records(from, to);  // within one hour
        }
        return MGW_OK;
      });
    }
    if (out == nullptr ||
        out->struct_size < offsetof(mgw_row_sink, callback_usage_group) + sizeof(out->callback_usage_group) ||
        out->callback_usage_group == nullptr) {
      return MGW_OK;
    }
    // Numeric keys (hours, days, key ids) in numeric order.
    std::vector<std::pair<std::string, Sums>> rows(groups.begin(), groups.end());
    const bool numeric = q.group_by == "hour" || q.group_by == "day" || q.group_by == "key";
    if (numeric) {
      std::sort(rows.begin(), rows.end(),
                [](const auto& x, const auto& y) { return std::stoll(x.first) < std::stoll(y.first); });
    }
    if (q.group_by.empty() && rows.empty()) rows.emplace_back("", Sums{});
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

}  // namespace mgw_sqlite
