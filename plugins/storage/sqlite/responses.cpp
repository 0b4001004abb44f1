// Stored responses of the Responses API (ABI 1.9): one row per (tenant_id,
// id), kept as given. A put is one write transaction (BEGIN IMMEDIATE), so of
// two processes putting the same id exactly one inserts and the other compares
// with what it stored: equal is OK (a copy run again), different is a
// conflict. The JSON is compared by the database, so a 16 MiB document is not
// read back into the plugin to be compared.
#include <modelgw/sdk.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "args.h"
#include "storage.h"

namespace mgw_sqlite {
namespace {

namespace sdk = mgw::storage;

constexpr const char* kResponseColumns =
    "tenant_id, id, previous_id, created_unix_ms, expires_unix_ms, input_json, response_json";

// A row of kResponseColumns to the sink; its strings are borrowed from SQLite
// until the statement steps again.
void emit_response(const Statement& row, const mgw_row_sink& out) {
  mgw_response_record r{};
  r.struct_size = sizeof r;
  r.tenant_id = row.int64(0);
  r.id = row.str(1);
  r.previous_id = row.str(2);
  r.created_unix_ms = row.int64(3);
  r.expires_unix_ms = row.int64(4);
  r.input_json = row.str(5);
  r.response_json = row.str(6);
  out.callback_response(out.host_data, &r);
}

}  // namespace

mgw_status response_put(mgw_storage* storage, const mgw_response_record* record,
                        const mgw_text_sink* error) noexcept {
  return guarded(error, "response put", [&] {
    auto& db = database_of(storage);
    const auto r = sdk::response_put_arg(record);
    // Both statements take the record's seven values as ?1 to ?7.
    const auto bind_record = [&r](auto& statement) {
      statement.bind(1, r.tenant_id);
      statement.bind(2, r.id);
      statement.bind(3, r.previous_id);
      statement.bind(4, r.created_unix_ms);
      statement.bind(5, r.expires_unix_ms);
      statement.bind(6, r.input_json);
      statement.bind(7, r.response_json);
    };
    return db.write([&](Connection& c) {
      auto same = c.statement(
          "SELECT previous_id = ?3 AND created_unix_ms = ?4 AND expires_unix_ms = ?5 AND input_json = ?6 "
          "AND response_json = ?7 FROM responses WHERE tenant_id = ?1 AND id = ?2");
      bind_record(same);
      if (same.step()) {
        if (same.int64(0) == 0)
          throw Failure(MGW_CONFLICT, "response " + std::string(r.id) + " of tenant " +
                                          std::to_string(r.tenant_id) +
                                          " is already stored with other values");
        return MGW_OK;
      }
      auto insert = c.statement(std::string("INSERT INTO responses (") + kResponseColumns +
                                ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
      bind_record(insert);
      insert.run();
      return MGW_OK;
    });
  });
}

mgw_status response_get(mgw_storage* storage, int64_t tenant_id, mgw_str id, int64_t now_unix_ms,
                        const mgw_row_sink* out, const mgw_text_sink* error) noexcept {
  return guarded(error, "response get", [&] {
    auto& db = database_of(storage);
    sdk::response_tenant_arg(tenant_id, "tenant_id");
    const auto key = sdk::response_id_arg(id, "id", false);
    const auto& sink = sdk::response_sink_arg(out);
    return db.read([&](Connection& c) {
      // An expired row is gone for the API even before a purge removes it.
      auto select = c.statement(std::string("SELECT ") + kResponseColumns +
                                " FROM responses WHERE tenant_id = ?1 AND id = ?2 AND expires_unix_ms > ?3");
      select.bind(1, tenant_id);
      select.bind(2, key);
      select.bind(3, now_unix_ms);
      if (!select.step()) return MGW_NOT_FOUND;
      emit_response(select, sink);
      return MGW_OK;
    });
  });
}

mgw_status response_delete(mgw_storage* storage, int64_t tenant_id, mgw_str id,
                           const mgw_text_sink* error) noexcept {
  return guarded(error, "response delete", [&] {
    auto& db = database_of(storage);
    sdk::response_tenant_arg(tenant_id, "tenant_id");
    const auto key = sdk::response_id_arg(id, "id", false);
    return db.write([&](Connection& c) {
      auto remove = c.statement("DELETE FROM responses WHERE tenant_id = ?1 AND id = ?2");
      remove.bind(1, tenant_id);
      remove.bind(2, key);
      remove.run();
      return c.changes() == 0 ? MGW_NOT_FOUND : MGW_OK;
    });
  });
}

mgw_status response_purge(mgw_storage* storage, int64_t now_unix_ms, int64_t limit, int64_t* out_removed,
                          const mgw_text_sink* error) noexcept {
  return guarded(error, "response purge", [&] {
    auto& db = database_of(storage);
    if (limit <= 0) throw Failure(MGW_INVALID_ARGUMENT, "limit: must be positive");
    // Bounded batches keep each write transaction short: other processes
    // wait on it.
    const std::int64_t removed = db.write([&](Connection& c) {
      auto remove = c.statement(
          "DELETE FROM responses WHERE rowid IN (SELECT rowid FROM responses "
          "WHERE expires_unix_ms <= ?1 LIMIT ?2)");
      remove.bind(1, now_unix_ms);
      remove.bind(2, limit);
      remove.run();
      return c.changes();
    });
    if (out_removed != nullptr) *out_removed = removed;
    return MGW_OK;
  });
}

mgw_status response_page(mgw_storage* storage, int64_t after_tenant_id, mgw_str after_id, int64_t limit,
                         const mgw_row_sink* out, const mgw_text_sink* error) noexcept {
  return guarded(error, "response page", [&] {
    auto& db = database_of(storage);
    sdk::response_tenant_arg(after_tenant_id, "after_tenant_id");
    const auto after = sdk::response_id_arg(after_id, "after_id", true);
    sdk::response_limit_arg(limit);
    const auto& sink = sdk::response_sink_arg(out);
    return db.read([&](Connection& c) {
      // The primary key's order; TEXT compares bytewise (BINARY), as the ABI says.
      auto select = c.statement(std::string("SELECT ") + kResponseColumns +
                                " FROM responses WHERE (tenant_id, id) > (?1, ?2) ORDER BY tenant_id, id "
                                "LIMIT ?3");
      select.bind(1, after_tenant_id);
      select.bind(2, after);
      select.bind(3, limit);
      while (select.step()) emit_response(select, sink);
      return MGW_OK;
    });
  });
}

}  // namespace mgw_sqlite
