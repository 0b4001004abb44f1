// Usage hooks: batch insert (all or none, each request once) and filtered,
// newest-first query.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <modelgw/sdk.hpp>

#include "args.h"
#include "rows.h"
#include "storage.h"
#include "usage_rows.h"

namespace mgw_pg {
namespace {

constexpr std::int64_t kDefaultLimit = 100;
constexpr std::int64_t kMaxLimit = 1000;
constexpr const char* kDefaultOperation = "chat.completions";

// The size of mgw_usage_record in ABI 1.0: the least a host may send.
constexpr std::size_t kUsageRecordV1Size = offsetof(mgw_usage_record, created_unix_ms) + sizeof(int64_t);

// One checked record: its strings copied (libpqxx sends std::strings), its
// numbers as given.
struct UsageRow {
  mgw_usage_record record;
  std::string request_id, alias, provider, upstream_model, error_code, prompt_name, pii_action, pii_findings,
      feature, reason, trace_id, operation;
};

UsageRow check_record(const mgw_usage_record& in) {
  UsageRow row{read_growable(in), {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  // NUL bytes and bytes that are not UTF-8 cannot go into PostgreSQL's text;
  // they become U+FFFD rather than costing the record (see storable_text).
  auto text = [](mgw_str s, std::string_view field) { return storable_text(bytes_arg(s, field)); };
  row.request_id = text(row.record.request_id, "request_id");
  row.alias = text(row.record.alias, "alias");
  row.provider = text(row.record.provider, "provider");
  row.upstream_model = text(row.record.upstream_model, "upstream_model");
  row.error_code = text(row.record.error_code, "error_code");
  row.prompt_name = text(row.record.prompt_name, "prompt_name");  // empty from a 1.0 host
  row.pii_action = text(row.record.pii_action, "pii_action");     // empty from an older host
  row.pii_findings = text(row.record.pii_findings, "pii_findings");
  row.feature = text(row.record.feature, "feature");  // ABI 1.2 fields: empty / 0 from an older host
  row.reason = text(row.record.reason, "reason");
  row.trace_id = text(row.record.trace_id, "trace_id");  // ABI 1.6: empty from an older host
  // ABI 1.8: an older host's records (and an empty value) came through chat
  // completions, the only API there was; stored as such so filters match them.
  row.operation = text(row.record.operation, "operation");
  if (row.operation.empty()) row.operation = kDefaultOperation;
  if (row.record.charge_count > 0 && row.record.charges == nullptr)
    throw Failure(MGW_INVALID_ARGUMENT,
                  "charges: NULL with charge_count " + std::to_string(row.record.charge_count));
  // The charges are read only during this call; the pointer stays valid.
  return row;
}

// The records as the host laid them out (its stride, not our sizeof).
std::vector<UsageRow> check_records(const mgw_usage_record* records, std::size_t count) {
  return mgw::storage::records_arg(records, count, kUsageRecordV1Size, check_record);
}

// Inserts the record unless its request_id is stored already (by this batch,
// an earlier one, or another process: the unique index decides, waiting for
// a concurrent insert of the same id to commit or roll back). True when
// inserted.
bool insert_record(pqxx::work& tx, const UsageRow& row) {
  const auto& r = row.record;
  return !tx.exec_prepared("usage_insert", row.request_id, r.tenant_id, r.key_id, row.alias, row.provider,
                           row.upstream_model, r.prompt_tokens, r.completion_tokens, r.total_tokens,
                           r.http_status, row.error_code, r.latency_us, r.ttft_us, r.streamed,
                           r.created_unix_ms, row.prompt_name, r.prompt_version, row.pii_action,
                           row.pii_findings, row.feature, r.cached_prompt_tokens, r.cost_micros,
                           r.price_input_micros, r.price_output_micros, r.price_cached_micros, row.reason,
                           row.trace_id, row.operation)
              .empty();
}

// Rollup rows and ledger windows are locked by the upserts and settles
// below. Two processes writing batches at once would deadlock if each took
// them in its own records' order, so a batch adds everything up first and
// then takes each row once, in one global order (the rollup key; the
// window's account and start).

// One hourly rollup row's key, ordered as the rows are locked.
using RollupKey = std::tuple<std::int64_t, std::int64_t, std::string, std::string, std::int64_t, std::int32_t,
                             std::int32_t, std::string>;
struct RollupSum {
  std::int64_t requests = 0, prompt_tokens = 0, completion_tokens = 0, total_tokens = 0, cost_micros = 0;
};

void add_to_rollups(std::map<RollupKey, RollupSum>& sums, const UsageRow& row) {
  const auto& r = row.record;
  const std::int64_t hour = r.created_unix_ms - (((r.created_unix_ms % kHourMs) + kHourMs) % kHourMs);
  auto& sum = sums[RollupKey{r.tenant_id, hour, row.alias, row.feature, r.key_id, r.http_status,
                             r.streamed != 0 ? 1 : 0, row.operation}];
  sum.requests += 1;
  sum.prompt_tokens += r.prompt_tokens;
  sum.completion_tokens += r.completion_tokens;
  sum.total_tokens += r.total_tokens;
  sum.cost_micros += r.cost_micros;
}

// The batch's rollups, in the same transaction as its records; each upsert
// adds to its row atomically, whoever else adds at the same time.
void write_rollups(pqxx::work& tx, const std::map<RollupKey, RollupSum>& sums) {
  for (const auto& [key, sum] : sums) {
    const auto& [tenant, hour, alias, feature, key_id, status, streamed, operation] = key;
    tx.exec_prepared("usage_rollup_add", tenant, hour, alias, feature, key_id, status, streamed, sum.requests,
                     sum.prompt_tokens, sum.completion_tokens, sum.total_tokens, sum.cost_micros, operation);
  }
}

// What the batch's requests cost, settled against the leases they were held
// on: each lease's settled part and its window's spent rise together, so what
// a ledger counts as spent is exactly what its records say. Windows are
// locked in (account, window start) order, each before its leases' rows (the
// order lease_take takes them in), so neither another batch nor a take can
// close a cycle.
void settle_charges(pqxx::work& tx, const std::map<std::int64_t, std::int64_t>& by_lease,
                    const mgw_host_api* host) {
  if (by_lease.empty()) return;
  std::string ids = "{";
  for (const auto& [lease, amount] : by_lease) ids += (ids.size() > 1 ? "," : "") + std::to_string(lease);
  ids += "}";
  std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> order;  // account, window, lease
  for (const auto& row : tx.exec_prepared("leases_windows", ids))
    order.emplace_back(row[1].as<std::string>(), row[2].as<std::int64_t>(), row[0].as<std::int64_t>());
  std::sort(order.begin(), order.end());
  std::set<std::int64_t> found;
  for (const auto& [account, window, lease] : order) {
    tx.exec_prepared("ledger_window_ensure_for_lease", lease);
    if (!tx.exec_prepared("ledger_window_lock_for_lease", lease).empty() &&
        !tx.exec_prepared("lease_settle", lease, by_lease.at(lease)).empty())
      found.insert(lease);
  }
  for (const auto& [lease, amount] : by_lease) {
    if (found.count(lease) != 0) continue;
    // Never fails the batch: the records must be kept. A lease this old was
    // cleaned up long after its window; say so for the operator.
    mgw::log(host, MGW_LOG_WARN,
             "postgres storage: usage records charge lease " + std::to_string(lease) +
                 ", which no longer exists; its amount is not counted on any budget");
  }
}

// The SELECT for the filters in use, with only the placeholders it uses
// (PostgreSQL must infer a type for each). Values are always bound.
std::string query_sql(const mgw_usage_query& q, const std::string& request_id,
                      std::vector<std::string>& params) {
  std::string sql = "SELECT " MGW_USAGE_SELECT_COLUMNS " FROM usage_records";
  const char* joiner = " WHERE ";
  auto filter = [&](bool used, const char* condition, std::string value) {
    if (!used) return;
    params.push_back(std::move(value));
    sql.append(joiner).append(condition).append("$" + std::to_string(params.size()));
    joiner = " AND ";
  };
  filter(q.tenant_id != 0, "tenant_id = ", std::to_string(q.tenant_id));
  filter(!request_id.empty(), "request_id = ", request_id);
  filter(q.since_unix_ms != 0, "created_unix_ms >= ", std::to_string(q.since_unix_ms));
  filter(q.until_unix_ms != 0, "created_unix_ms < ", std::to_string(q.until_unix_ms));
  const std::int64_t limit = q.limit == 0 ? kDefaultLimit : std::min(q.limit, kMaxLimit);
  params.push_back(std::to_string(limit));
  sql.append(" ORDER BY created_unix_ms DESC, id DESC LIMIT $" + std::to_string(params.size()));
  return sql;
}

}  // namespace

void emit_usage(const pqxx::result& rows, const mgw_row_sink* out) {
  if (out == nullptr || out->callback_usage == nullptr) return;
  for (const auto& row : rows) {
    mgw_usage_record record{};
    record.struct_size = sizeof record;
    record.request_id = str_of(row[0]);  // the strings are borrowed from the result
    record.tenant_id = int64_of(row[1]);
    record.key_id = int64_of(row[2]);
    record.alias = str_of(row[3]);
    record.provider = str_of(row[4]);
    record.upstream_model = str_of(row[5]);
    record.prompt_tokens = int64_of(row[6]);
    record.completion_tokens = int64_of(row[7]);
    record.total_tokens = int64_of(row[8]);
    record.http_status = row[9].as<int32_t>();
    record.error_code = str_of(row[10]);
    record.latency_us = int64_of(row[11]);
    record.ttft_us = int64_of(row[12]);
    record.streamed = row[13].as<int32_t>();
    record.created_unix_ms = int64_of(row[14]);
    record.prompt_name = str_of(row[15]);
    record.prompt_version = int64_of(row[16]);
    record.pii_action = str_of(row[17]);
    record.pii_findings = str_of(row[18]);
    record.feature = str_of(row[19]);
    record.cached_prompt_tokens = int64_of(row[20]);
    record.cost_micros = int64_of(row[21]);
    record.price_input_micros = int64_of(row[22]);
    record.price_output_micros = int64_of(row[23]);
    record.price_cached_micros = int64_of(row[24]);
    record.reason = str_of(row[25]);
    record.seq = int64_of(row[26]);
    record.trace_id = str_of(row[27]);
    record.operation = str_of(row[28]);
    out->callback_usage(out->host_data, &record);
  }
}

mgw_status usage_insert(mgw_storage* storage, const mgw_usage_record* records, size_t count,
                        const mgw_text_sink* error) noexcept {
  return guarded(error, "usage insert", [&] {
    auto& db = database_of(storage);
    if (count == 0) return MGW_OK;
    // Every record is checked before the transaction starts, so a bad one
    // costs no lock time.
    const auto rows = check_records(records, count);
    return db.write([&](pqxx::work& tx) {
      // The first failure throws and the whole batch rolls back.
      std::map<RollupKey, RollupSum> rollups;
      std::map<std::int64_t, std::int64_t> charges;  // lease -> amount
      for (const auto& row : rows) {
        // Exactly once: the host replays its journal after an outage, and a
        // replay cut short is run again. A record skipped here brings no
        // rollup and no charge.
        if (!insert_record(tx, row)) continue;
        add_to_rollups(rollups, row);
        for (std::size_t i = 0; i < row.record.charge_count; ++i) {
          const mgw_ledger_charge& charge = row.record.charges[i];
          if (charge.amount > 0) charges[charge.lease_id] += charge.amount;
        }
      }
      write_rollups(tx, rollups);
      settle_charges(tx, charges, db.host());
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
    const std::string request_id(text_arg(q.request_id, "request_id"));
    std::vector<std::string> params;
    const auto sql = query_sql(q, request_id, params);
    auto rows = db.read([&](pqxx::transaction_base& tx) {
      return tx.exec_params(sql, pqxx::prepare::make_dynamic_params(params));
    });
    emit_usage(rows, out);
    return MGW_OK;
  });
}

}  // namespace mgw_pg
