// Audit-log hooks (ABI 1.3): append-only chains, one per tenant. The host
// links and hashes the events; this store only keeps them, all or none per
// append, and refuses a link another process appended first (the unique
// (tenant_id, seq) index: MGW_CONFLICT). Nothing here updates or deletes an
// event.
#include <modelgw/sdk.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "args.h"
#include "storage.h"

namespace mgw_sqlite {
namespace {

constexpr std::int64_t kMaxAuditLimit = 10000;
constexpr const char* kColumns =
    "id, tenant_id, seq, created_unix_ms, actor, action, target, request_id, details_json, prev_hash, hash, "
    "mac";

void emit_event(const Statement& row, const mgw_row_sink* out) {
  if (out == nullptr ||
      out->struct_size < offsetof(mgw_row_sink, callback_audit) + sizeof(out->callback_audit) ||
      out->callback_audit == nullptr) {
    return;
  }
  mgw_audit_event e{};
  e.struct_size = sizeof e;
  e.id = row.int64(0);
  e.tenant_id = row.int64(1);
  e.seq = row.int64(2);
  e.created_unix_ms = row.int64(3);
  e.actor = row.str(4);
  e.action = row.str(5);
  e.target = row.str(6);
  e.request_id = row.str(7);
  e.details_json = row.str(8);
  e.prev_hash = row.str(9);
  e.hash = row.str(10);
  e.mac = row.str(11);
  out->callback_audit(out->host_data, &e);
}

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
    return db.write([&](Connection& c) {
      auto insert = c.statement(
          "INSERT INTO audit_events (tenant_id, seq, created_unix_ms, actor, action, target, request_id, "
          "details_json, prev_hash, hash, mac) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
      for (std::size_t i = 0; i < count; ++i) {
        const auto e = read_growable(*reinterpret_cast<const mgw_audit_event*>(bytes + i * stride));
        if (e.seq < 1)
          throw Failure(MGW_INVALID_ARGUMENT, "events[" + std::to_string(i) + "]: seq must be >= 1");
        insert.reset();
        insert.bind(1, e.tenant_id);
        insert.bind(2, e.seq);
        insert.bind(3, e.created_unix_ms);
        insert.bind(4, bytes_arg(e.actor, "actor"));
        insert.bind(5, bytes_arg(e.action, "action"));
        insert.bind(6, bytes_arg(e.target, "target"));
        insert.bind(7, bytes_arg(e.request_id, "request_id"));
        insert.bind(8, bytes_arg(e.details_json, "details_json"));
        insert.bind(9, bytes_arg(e.prev_hash, "prev_hash"));
        insert.bind(10, bytes_arg(e.hash, "hash"));
        insert.bind(11, bytes_arg(e.mac, "mac"));  // ABI 1.7: empty from an older host
        insert.run();  // a (tenant_id, seq) already there: MGW_CONFLICT, and the transaction rolls back
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
    const auto action = bytes_arg(f.action, "action");
    const auto actor = bytes_arg(f.actor, "actor");
    if (f.limit < 1 || f.limit > kMaxAuditLimit)
      throw Failure(MGW_INVALID_ARGUMENT, "limit: must be 1 to 10000");
    std::string sql = std::string("SELECT ") + kColumns + " FROM audit_events WHERE tenant_id = ?1";
    if (f.from_unix_ms > 0) sql += " AND created_unix_ms >= ?2";
    if (f.to_unix_ms > 0) sql += " AND created_unix_ms < ?3";
    if (!action.empty()) sql += " AND action = ?4";
    if (!actor.empty()) sql += " AND actor = ?5";
    if (f.ascending != 0) {
      sql += " AND seq > ?6 ORDER BY seq ASC";
    } else {
      if (f.before_seq > 0) sql += " AND seq < ?7";
      sql += " ORDER BY seq DESC";
    }
    sql += " LIMIT ?8";
    return db.read([&](Connection& c) {
      auto page = c.statement(sql);
      page.bind(1, f.tenant_id);
      if (f.from_unix_ms > 0) page.bind(2, f.from_unix_ms);
      if (f.to_unix_ms > 0) page.bind(3, f.to_unix_ms);
      if (!action.empty()) page.bind(4, action);
      if (!actor.empty()) page.bind(5, actor);
      if (f.ascending != 0) {
        page.bind(6, f.after_seq);
      } else if (f.before_seq > 0) {
        page.bind(7, f.before_seq);
      }
      page.bind(8, f.limit);
      while (page.step()) emit_event(page, out);
      return MGW_OK;
    });
  });
}

mgw_status audit_heads(mgw_storage* storage, const mgw_row_sink* out, const mgw_text_sink* error) noexcept {
  return guarded(error, "audit heads", [&] {
    auto& db = database_of(storage);
    return db.read([&](Connection& c) {
      // The unique (tenant_id, seq) index answers each MAX without a scan.
      auto heads = c.statement(std::string("SELECT ") + kColumns +
                               " FROM audit_events e WHERE seq = (SELECT MAX(seq) FROM audit_events WHERE "
                               "tenant_id = e.tenant_id) ORDER BY tenant_id");
      while (heads.step()) emit_event(heads, out);
      return MGW_OK;
    });
  });
}

}  // namespace mgw_sqlite
