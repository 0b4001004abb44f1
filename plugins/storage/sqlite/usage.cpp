// Usage hooks: batch insert (all or none) and filtered, newest-first query.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <modelgw/sdk.hpp>

#include "args.h"
#include "storage.h"
#include "usage_rows.h"

namespace mgw_sqlite {
namespace {

constexpr std::int64_t kDefaultLimit = 100;
constexpr std::int64_t kMaxLimit = 1000;
constexpr std::string_view kDefaultOperation = "chat.completions";

// The size of mgw_usage_record in ABI 1.0: the least a host may send.
constexpr std::size_t kUsageRecordV1Size = offsetof(mgw_usage_record, created_unix_ms) + sizeof(int64_t);

// One checked record: its strings viewed, its numbers copied.
struct UsageRow {
  mgw_usage_record record;
  std::string_view request_id, alias, provider, upstream_model, error_code, prompt_name, pii_action,
      pii_findings, feature, reason, trace_id, operation;
};

UsageRow check_record(const mgw_usage_record& in) {
  UsageRow row{read_growable(in), {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  row.request_id = bytes_arg(row.record.request_id, "request_id");
  row.alias = bytes_arg(row.record.alias, "alias");
  row.provider = bytes_arg(row.record.provider, "provider");
  row.upstream_model = bytes_arg(row.record.upstream_model, "upstream_model");
  row.error_code = bytes_arg(row.record.error_code, "error_code");
  row.prompt_name = bytes_arg(row.record.prompt_name, "prompt_name");  // empty from a 1.0 host
  row.pii_action = bytes_arg(row.record.pii_action, "pii_action");     // empty from an older host
  row.pii_findings = bytes_arg(row.record.pii_findings, "pii_findings");
  row.feature = bytes_arg(row.record.feature, "feature");  // ABI 1.2 fields: empty / 0 from an older host
  row.reason = bytes_arg(row.record.reason, "reason");
  row.trace_id = bytes_arg(row.record.trace_id, "trace_id");  // ABI 1.6: empty from an older host
  // ABI 1.8: an older host's records (and an empty value) came through chat
  // completions, the only API there was; stored as such so filters match them.
  row.operation = bytes_arg(row.record.operation, "operation");
  if (row.operation.empty()) row.operation = kDefaultOperation;
  if (row.record.charge_count > 0 && row.record.charges == nullptr)
    throw Failure(MGW_INVALID_ARGUMENT,
                  "charges: NULL with charge_count " + std::to_string(row.record.charge_count));
  return row;
}

// The records as the host laid them out (its stride, not our sizeof).
std::vector<UsageRow> check_records(const mgw_usage_record* records, std::size_t count) {
  return mgw::storage::records_arg(records, count, kUsageRecordV1Size, check_record);
}

// Columns, in this order, for both INSERT and SELECT.
#define MGW_USAGE_COLUMNS                                                                                \
  "request_id, tenant_id, key_id, alias, provider, upstream_model, prompt_tokens, completion_tokens, "   \
  "total_tokens, http_status, error_code, latency_us, ttft_us, streamed, created_unix_ms, prompt_name, " \
  "prompt_version, pii_action, pii_findings, feature, cached_prompt_tokens, cost_micros, "               \
  "price_input_micros, price_output_micros, price_cached_micros, reason, trace_id, operation"

void insert_row(Statement& insert, const UsageRow& row) {
  const auto& r = row.record;
  insert.bind(1, row.request_id);
  insert.bind(2, r.tenant_id);
  insert.bind(3, r.key_id);
  insert.bind(4, row.alias);
  insert.bind(5, row.provider);
  insert.bind(6, row.upstream_model);
  insert.bind(7, r.prompt_tokens);
  insert.bind(8, r.completion_tokens);
  insert.bind(9, r.total_tokens);
  insert.bind(10, std::int64_t{r.http_status});
  insert.bind(11, row.error_code);
  insert.bind(12, r.latency_us);
  insert.bind(13, r.ttft_us);
  insert.bind(14, std::int64_t{r.streamed});
  insert.bind(15, r.created_unix_ms);
  insert.bind(16, row.prompt_name);
  insert.bind(17, r.prompt_version);
  insert.bind(18, row.pii_action);
  insert.bind(19, row.pii_findings);
  insert.bind(20, row.feature);
  insert.bind(21, r.cached_prompt_tokens);
  insert.bind(22, r.cost_micros);
  insert.bind(23, r.price_input_micros);
  insert.bind(24, r.price_output_micros);
  insert.bind(25, r.price_cached_micros);
  insert.bind(26, row.reason);
  insert.bind(27, row.trace_id);
  insert.bind(28, row.operation);
  insert.run();
}

// The rollup rows and the lease charges of one batch, summed before they
// are written: at load a batch holds hundreds of records of the same few
// (tenant, hour, alias, ...) groups and leases, and one UPDATE per group or
// lease replaces one per record (with budgets, a credit account and a
// feature, seven statements per record became one INSERT and one lookup).
class BatchSums {
 public:
  // `id`: the record's rowid, just inserted.
  void add(const UsageRow& row, std::int64_t id) {
    const auto& r = row.record;
    const std::int64_t hour = r.created_unix_ms - (((r.created_unix_ms % 3'600'000) + 3'600'000) % 3'600'000);
    auto& sum =
        rollups_[RollupKey{r.tenant_id, hour, std::string(row.alias), std::string(row.feature), r.key_id,
                           r.http_status, r.streamed != 0 ? 1 : 0, std::string(row.operation)}];
    sum.requests += 1;
    sum.prompt_tokens += r.prompt_tokens;
    sum.completion_tokens += r.completion_tokens;
    sum.total_tokens += r.total_tokens;
    sum.cost_micros += r.cost_micros;
    sum.min_id = sum.min_id == 0 ? id : std::min(sum.min_id, id);
    sum.max_id = std::max(sum.max_id, id);
    post(r.tenant_id, kPostingModel, row.alias, id);
    post(r.tenant_id, kPostingFeature, row.feature, id);
    post(r.tenant_id, kPostingKey, std::to_string(r.key_id), id);
    for (std::size_t i = 0; i < r.charge_count; ++i) {
      const mgw_ledger_charge& charge = r.charges[i];
      if (charge.amount > 0) leases_[charge.lease_id] += charge.amount;
    }
  }

  // One posting per (tenant, filter column, value) of the batch: the range of
  // the batch's ids that holds its records (migration 13). The batch is one
  // transaction, so its range holds no other batch's records.
  void write_postings(Connection& c) const {
    auto insert = c.statement(
        "INSERT INTO usage_postings (tenant_id, kind, value, min_id, max_id) VALUES (?1, ?2, ?3, ?4, ?5)");
    for (const auto& [key, range] : postings_) {
      insert.bind(1, key.tenant_id);
      insert.bind(2, std::int64_t{key.kind});
      insert.bind(3, key.value);
      insert.bind(4, range.first);
      insert.bind(5, range.second);
      insert.run();
      insert.reset();
    }
  }

  // The records' hours of the rollups, in the same transaction as the records:
  // their sums, and the range of ids the group's records lie in, which is
  // how a filtered page finds them (usage_query.cpp, migration 13).
  void write_rollups(Connection& c) const {
    auto upsert = c.statement(
        "INSERT INTO usage_rollup_hour (tenant_id, hour_start, alias, feature, key_id, http_status, "
        "streamed, operation, requests, prompt_tokens, completion_tokens, total_tokens, cost_micros, "
        "min_id, max_id) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) "
        "ON CONFLICT DO UPDATE SET requests = requests + excluded.requests, "
        "prompt_tokens = prompt_tokens + excluded.prompt_tokens, "
        "completion_tokens = completion_tokens + excluded.completion_tokens, "
        "total_tokens = total_tokens + excluded.total_tokens, cost_micros = cost_micros + "
        "excluded.cost_micros, min_id = CASE WHEN min_id = 0 THEN excluded.min_id "
        "ELSE min(min_id, excluded.min_id) END, max_id = max(max_id, excluded.max_id)");
    for (const auto& [key, sum] : rollups_) {
      upsert.bind(1, key.tenant_id);
      upsert.bind(2, key.hour_start);
      upsert.bind(3, key.alias);
      upsert.bind(4, key.feature);
      upsert.bind(5, key.key_id);
      upsert.bind(6, std::int64_t{key.http_status});
      upsert.bind(7, std::int64_t{key.streamed});
      upsert.bind(8, key.operation);
      upsert.bind(9, sum.requests);
      upsert.bind(10, sum.prompt_tokens);
      upsert.bind(11, sum.completion_tokens);
      upsert.bind(12, sum.total_tokens);
      upsert.bind(13, sum.cost_micros);
      upsert.bind(14, sum.min_id);
      upsert.bind(15, sum.max_id);
      upsert.run();
      upsert.reset();
    }
  }

  // What the records' requests cost, settled against the leases they were
  // held on: the lease's settled part and its window's spent rise together,
  // so what a ledger counts as spent is exactly what its records say.
  void settle_charges(Connection& c, const mgw_host_api* host) const {
    std::map<std::pair<std::string, std::int64_t>, std::int64_t> windows;  // (account, window_start) -> spent
    // A lookup, then the update: SQLite runs UPDATE ... RETURNING through an
    // ephemeral table, a B-tree with its own pager opened and closed on
    // every run (measured: most of a one-record batch's settling).
    auto lease = c.statement("SELECT account, window_start FROM leases WHERE id = ?1");
    auto settle = c.statement("UPDATE leases SET settled = settled + ?2 WHERE id = ?1");
    for (const auto& [lease_id, amount] : leases_) {
      lease.bind(1, lease_id);
      if (!lease.step()) {
        lease.reset();
        // Never fails the batch: the records must be kept. A lease this old
        // was cleaned up long after its window; say so for the operator.
        mgw::log(host, MGW_LOG_WARN,
                 "sqlite storage: usage records charge lease " + std::to_string(lease_id) +
                     ", which no longer exists; their amount is not counted on any budget");
        continue;
      }
      windows[{std::string(lease.text(0)), lease.int64(1)}] += amount;
      lease.reset();
      settle.bind(1, lease_id);
      settle.bind(2, amount);
      settle.run();
      settle.reset();
    }
    auto spend = c.statement(
        "INSERT INTO ledger_windows (account, window_start, spent) VALUES (?1, ?2, ?3) "
        "ON CONFLICT (account, window_start) DO UPDATE SET spent = spent + excluded.spent");
    for (const auto& [window, spent] : windows) {
      spend.bind(1, window.first);
      spend.bind(2, window.second);
      spend.bind(3, spent);
      spend.run();
      spend.reset();
    }
  }

 private:
  struct RollupKey {
    std::int64_t tenant_id, hour_start;
    std::string alias, feature;
    std::int64_t key_id;
    int http_status, streamed;
    std::string operation;
    auto operator<=>(const RollupKey&) const = default;
  };
  struct RollupSum {
    std::int64_t requests = 0, prompt_tokens = 0, completion_tokens = 0, total_tokens = 0, cost_micros = 0;
    std::int64_t min_id = 0, max_id = 0;  // 0: none yet (rowids start at 1)
  };
  std::map<RollupKey, RollupSum> rollups_;

  struct PostingKey {
    std::int64_t tenant_id;
    int kind;
    std::string value;
    auto operator<=>(const PostingKey&) const = default;
  };
  void post(std::int64_t tenant_id, int kind, std::string_view value, std::int64_t id) {
    auto [it, fresh] = postings_.try_emplace(PostingKey{tenant_id, kind, std::string(value)}, id, id);
    if (!fresh) it->second = {std::min(it->second.first, id), std::max(it->second.second, id)};
  }
  std::map<PostingKey, std::pair<std::int64_t, std::int64_t>> postings_;  // -> (min_id, max_id)
  std::map<std::int64_t, std::int64_t> leases_;                           // lease id -> amount charged
};

}  // namespace

void emit_usage(const Statement& row, const mgw_row_sink* out) {
  if (out == nullptr || out->callback_usage == nullptr) return;
  mgw_usage_record record{};
  record.struct_size = sizeof record;
  record.request_id = row.str(0);  // the strings are borrowed from SQLite until the next step
  record.tenant_id = row.int64(1);
  record.key_id = row.int64(2);
  record.alias = row.str(3);
  record.provider = row.str(4);
  record.upstream_model = row.str(5);
  record.prompt_tokens = row.int64(6);
  record.completion_tokens = row.int64(7);
  record.total_tokens = row.int64(8);
  record.http_status = static_cast<int32_t>(row.int64(9));
  record.error_code = row.str(10);
  record.latency_us = row.int64(11);
  record.ttft_us = row.int64(12);
  record.streamed = static_cast<int32_t>(row.int64(13));
  record.created_unix_ms = row.int64(14);
  record.prompt_name = row.str(15);
  record.prompt_version = row.int64(16);
  record.pii_action = row.str(17);
  record.pii_findings = row.str(18);
  record.feature = row.str(19);
  record.cached_prompt_tokens = row.int64(20);
  record.cost_micros = row.int64(21);
  record.price_input_micros = row.int64(22);
  record.price_output_micros = row.int64(23);
  record.price_cached_micros = row.int64(24);
  record.reason = row.str(25);
  record.seq = row.int64(26);
  record.trace_id = row.str(27);
  record.operation = row.str(28);
  out->callback_usage(out->host_data, &record);
}

namespace {

// The SELECT for the filters in use. Built from fixed fragments with numbered
// placeholders (values are always bound), one text per combination of filters,
// so each variant is prepared once per connection and can use its index; an
// "(?1 = 0 OR tenant_id = ?1)" form would defeat the indexes.
std::string query_sql(const mgw_usage_query& q, std::string_view request_id) {
  std::string sql = "SELECT " MGW_USAGE_SELECT_COLUMNS " FROM usage_records";
  const char* joiner = " WHERE ";
  auto filter = [&](bool used, const char* condition) {
    if (!used) return;
    sql.append(joiner).append(condition);
    joiner = " AND ";
  };
  filter(q.tenant_id != 0, "tenant_id = ?1");
  filter(!request_id.empty(), "request_id = ?2");
  filter(q.since_unix_ms != 0, "created_unix_ms >= ?3");
  filter(q.until_unix_ms != 0, "created_unix_ms < ?4");
  // ?5 is always present, so ?1..?4 are in range and may be bound even when unused.
  sql.append(" ORDER BY created_unix_ms DESC, id DESC LIMIT ?5");
  return sql;
}

}  // namespace

mgw_status usage_insert(mgw_storage* storage, const mgw_usage_record* records, size_t count,
                        const mgw_text_sink* error) noexcept {
  return guarded(error, "usage insert", [&] {
    auto& db = database_of(storage);
    if (count == 0) return MGW_OK;
    // Every record is checked before the transaction starts, so a bad one
    // costs no lock time.
    auto rows = check_records(records, count);
    return db.write([&](Connection& c) {
      // One prepared INSERT, run once per record; the first failure throws and
      // write() rolls the whole batch back.
      BatchSums sums;
      // Exactly once: the host replays its journal after an outage, and a
      // replay cut short is run again.
      auto seen = c.statement("SELECT 1 FROM usage_records WHERE request_id = ?1");
      auto insert = c.statement("INSERT INTO usage_records (" MGW_USAGE_COLUMNS
                                ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
                                "?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28)");
      for (const auto& row : rows) {
        seen.bind(1, row.request_id);
        const bool kept = seen.step();
        seen.reset();
        if (kept) continue;
        insert_row(insert, row);
        insert.reset();
        sums.add(row, c.last_insert_rowid());
      }
      sums.write_rollups(c);
      sums.write_postings(c);
      sums.settle_charges(c, db.host());
      return MGW_OK;
    });
  });
}

mgw_status usage_query(mgw_storage* storage, const mgw_usage_query* query, const mgw_row_sink* out,
                       const mgw_text_sink* error) noexcept {
  return guarded(error, "usage query", [&] {
    auto& db = database_of(storage);
    if (query == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "query: NULL");
    const auto q = read_growable(*query);
    if (q.limit < 0) throw Failure(MGW_INVALID_ARGUMENT, "limit: must not be negative");
    const std::int64_t limit = q.limit == 0 ? kDefaultLimit : std::min(q.limit, kMaxLimit);
    auto request_id = bytes_arg(q.request_id, "request_id");
    auto sql = query_sql(q, request_id);
    return db.read([&](Connection& c) {
      auto select = c.statement(sql);
      select.bind(1, q.tenant_id);
      select.bind(2, request_id);
      select.bind(3, q.since_unix_ms);
      select.bind(4, q.until_unix_ms);
      select.bind(5, limit);
      while (select.step()) emit_usage(select, out);
      return MGW_OK;
    });
  });
}

#undef MGW_USAGE_COLUMNS

}  // namespace mgw_sqlite
