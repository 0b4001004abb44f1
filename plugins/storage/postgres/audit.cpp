// Audit-log hooks (ABI 1.3): append-only chains, one per tenant. The host
// links and hashes the events; this store only keeps them, all or none per
// append, and refuses a link another process appended first (the unique
// (tenant_id, seq) index: MGW_CONFLICT, and the whole batch rolls back).
// Nothing here updates or deletes an event.
#include <modelgw/sdk.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "rows.h"
#include "storage.h"

namespace mgw_pg {
namespace {

constexpr std::int64_t kMaxAuditLimit = 10000;
constexpr const char* kColumns =
    "id, tenant_id, seq, created_unix_ms, actor, action, target, request_id, details_json, prev_hash, hash, "
    "mac";

void emit_events(const pqxx::result& rows, const mgw_row_sink* out) {
  if (out == nullptr ||
      out->struct_size < offsetof(mgw_row_sink, callback_audit) + sizeof(out->callback_audit) ||
      out->callback_audit == nullptr) {
    return;
  }
  for (const auto& row : rows) {
    mgw_audit_event e{};
    e.struct_size = sizeof e;
    e.id = int64_of(row[0]);
    e.tenant_id = int64_of(row[1]);
    e.seq = int64_of(row[2]);
    e.created_unix_ms = int64_of(row[3]);
    e.actor = str_of(row[4]);
    e.action = str_of(row[5]);
    e.target = str_of(row[6]);
    e.request_id = str_of(row[7]);
    e.details_json = str_of(row[8]);
    e.prev_hash = str_of(row[9]);
    e.hash = str_of(row[10]);
    e.mac = str_of(row[11]);
    out->callback_audit(out->host_data, &e);
  }
}

// One checked event, its strings copied.
struct Event {
  std::int64_t tenant_id, seq, created_unix_ms;
  std::string actor, action, target, request_id, details_json, prev_hash, hash, mac;
};

}  // namespace

mgw_status audit_append(mgw_storage* storage, const mgw_audit_event* events, size_t count,
                        const mgw_text_sink* error) noexcept {
  return guarded(error, "audit append", [&] {
    auto& db = database_of(storage);
    if (count == 0) return MGW_OK;
    if (events == nullptr)
      throw Failure(MGW_INVALID_ARGUMENT, "events: NULL with count " + std::to_string(count));
    // The host's stride (its sizeof), as for usage records: an older host's
    // events are shorter (no mac before 1.7).
    const std::size_t stride = events[0].struct_size;
    if (stride < MGW_AUDIT_EVENT_SIZE_1_3 || stride % alignof(mgw_audit_event) != 0)
      throw Failure(MGW_INVALID_ARGUMENT,
                    "events: struct_size " + std::to_string(stride) + " is not a valid size");
    const auto* bytes = reinterpret_cast<const unsigned char*>(events);
    // Every event is checked before the transaction: a bad one appends none.
    std::vector<Event> batch;
    batch.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      const auto e = read_growable(*reinterpret_cast<const mgw_audit_event*>(bytes + i * stride));
      if (e.seq < 1)
        throw Failure(MGW_INVALID_ARGUMENT, "events[" + std::to_string(i) + "]: seq must be >= 1");
      batch.push_back(
          Event{e.tenant_id, e.seq, e.created_unix_ms, std::string(text_arg(e.actor, "actor")),
                std::string(text_arg(e.action, "action")), std::string(text_arg(e.target, "target")),
                std::string(text_arg(e.request_id, "request_id")),
                std::string(text_arg(e.details_json, "details_json")),
                std::string(text_arg(e.prev_hash, "prev_hash")), std::string(text_arg(e.hash, "hash")),
                std::string(text_arg(e.mac, "mac"))});  // ABI 1.7: empty from an older host
    }
    return db.write([&](pqxx::work& tx) {
      for (const auto& e : batch) {
        // A (tenant_id, seq) already there: unique violation, MGW_CONFLICT,
        // and the transaction rolls back.
        tx.exec_prepared("audit_insert", e.tenant_id, e.seq, e.created_unix_ms, e.actor, e.action, e.target,
                         e.request_id, e.details_json, e.prev_hash, e.hash, e.mac);
      }
      return MGW_OK;
    });
  });
}

mgw_status audit_page(mgw_storage* storage, const mgw_audit_filter* filter, const mgw_row_sink* out,
                      const mgw_text_sink* error) noexcept {
  return guarded(error, "audit page", [&] {
    auto& db = database_of(storage);
    if (filter == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "filter: NULL");
    const auto f = read_growable(*filter);
    const std::string action(text_arg(f.action, "action"));
    const std::string actor(text_arg(f.actor, "actor"));
    if (f.limit < 1 || f.limit > kMaxAuditLimit)
      throw Failure(MGW_INVALID_ARGUMENT, "limit: must be 1 to 10000");
    // Only the placeholders in use: PostgreSQL infers a type for each.
    std::string sql = std::string("SELECT ") + kColumns + " FROM audit_events WHERE tenant_id = $1";
    std::vector<std::string> params{std::to_string(f.tenant_id)};
    auto bind = [&](std::string_view prefix, std::string value) {
      params.push_back(std::move(value));
      sql.append(prefix).append("$").append(std::to_string(params.size()));
    };
    if (f.from_unix_ms > 0) bind(" AND created_unix_ms >= ", std::to_string(f.from_unix_ms));
    if (f.to_unix_ms > 0) bind(" AND created_unix_ms < ", std::to_string(f.to_unix_ms));
    if (!action.empty()) bind(" AND action = ", action);
    if (!actor.empty()) bind(" AND actor = ", actor);
    if (f.ascending != 0) {
      bind(" AND seq > ", std::to_string(f.after_seq));
      sql += " ORDER BY seq ASC";
    } else {
      if (f.before_seq > 0) bind(" AND seq < ", std::to_string(f.before_seq));
      sql += " ORDER BY seq DESC";
    }
    bind(" LIMIT ", std::to_string(f.limit));
    auto rows = db.read([&](pqxx::transaction_base& tx) {
      return tx.exec_params(sql, pqxx::prepare::make_dynamic_params(params));
    });
    emit_events(rows, out);
    return MGW_OK;
  });
}

mgw_status audit_heads(mgw_storage* storage, const mgw_row_sink* out, const mgw_text_sink* error) noexcept {
  return guarded(error, "audit heads", [&] {
    auto& db = database_of(storage);
    auto rows = db.read([&](pqxx::transaction_base& tx) { return tx.exec_prepared("audit_heads"); });
    emit_events(rows, out);
    return MGW_OK;
  });
}

}  // namespace mgw_pg
