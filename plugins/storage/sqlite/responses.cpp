// Stored responses of the Responses API (ABI 1.9): one row per (tenant_id,
// id), kept as given. A put is one write transaction (BEGIN IMMEDIATE), so of
// two processes putting the same id exactly one inserts and the other compares
// with what it stored: equal is OK (a copy run again), different is a
// conflict. The JSON is compared by the database, so a 16 MiB document is not
// read back into the plugin to be compared.
#include <modelgw/sdk.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "args.h"
#include "guard.h"
#include "hooks.h"
#include "storage.h"

namespace mgw_sqlite {
namespace {

constexpr std::size_t kMaxResponseIdBytes = 128;
// Generous for a conversation turn; bounds what one row can make the host and
// the database hold.
constexpr std::size_t kMaxResponseJsonBytes = std::size_t{16} << 20;
constexpr std::int64_t kMaxResponsePage = 1000;
constexpr const char* kResponseColumns =
    "tenant_id, id, previous_id, created_unix_ms, expires_unix_ms, input_json, response_json";

// An id of 1..128 bytes; `may_be_empty` for previous_id and a page's cursor.
std::string_view response_id_arg(mgw_str id, std::string_view field, bool may_be_empty) {
  const auto v = text_arg(id, field);
  if ((v.empty() && !may_be_empty) || v.size() > kMaxResponseIdBytes)
    throw Failure(MGW_INVALID_ARGUMENT,
                  std::string(field) + ": must be " + (may_be_empty ? "0" : "1") + " to 128 bytes");
  return v;
}

std::string_view response_json_arg(mgw_str json, std::string_view field) {
  const auto v = text_arg(json, field);
  if (v.empty()) throw Failure(MGW_INVALID_ARGUMENT, std::string(field) + ": empty (must be JSON)");
  if (v.size() > kMaxResponseJsonBytes)
    throw Failure(MGW_INVALID_ARGUMENT, std::string(field) + ": over 16 MiB");
  return v;
}

void response_tenant_arg(std::int64_t tenant_id, std::string_view field) {
  if (tenant_id < 0) throw Failure(MGW_INVALID_ARGUMENT, std::string(field) + ": must not be negative");
}

// The sink rows go to; a sink that cannot take them is the host's mistake,
// refused before any work (a row found and dropped would read as "none").
const mgw_row_sink& response_sink_arg(const mgw_row_sink* out) {
  if (out == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "out: NULL");
  if (out->struct_size < MGW_ROW_SINK_SIZE_1_9 || out->callback_response == nullptr)
    throw Failure(MGW_INVALID_ARGUMENT, "out: the row sink has no callback_response (ABI 1.9)");
  return *out;
}

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
    if (record == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "record: NULL");
    if (record->struct_size < MGW_RESPONSE_RECORD_SIZE_1_9)
      throw Failure(MGW_INVALID_ARGUMENT, "record: struct_size " + std::to_string(record->struct_size) +
                                              " is below the ABI 1.9 size");
    const auto r = read_growable(*record);
    response_tenant_arg(r.tenant_id, "tenant_id");
    const auto id = response_id_arg(r.id, "id", false);
    const auto previous = response_id_arg(r.previous_id, "previous_id", true);
    const auto input = response_json_arg(r.input_json, "input_json");
    const auto response = response_json_arg(r.response_json, "response_json");
    return db.write([&](Connection& c) {
      auto same = c.statement(
          "SELECT previous_id = ?3 AND created_unix_ms = ?4 AND expires_unix_ms = ?5 AND input_json = ?6 "
          "AND response_json = ?7 FROM responses WHERE tenant_id = ?1 AND id = ?2");
      same.bind(1, r.tenant_id);
      same.bind(2, id);
      same.bind(3, previous);
      same.bind(4, r.created_unix_ms);
      same.bind(5, r.expires_unix_ms);
      same.bind(6, input);
      same.bind(7, response);
      if (same.step()) {
        if (same.int64(0) == 0)
          throw Failure(MGW_CONFLICT, "response " + std::string(id) + " of tenant " +
                                          std::to_string(r.tenant_id) +
                                          " is already stored with other values");
        return MGW_OK;
      }
      auto insert = c.statement(std::string("INSERT INTO responses (") + kResponseColumns +
                                ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
      insert.bind(1, r.tenant_id);
      insert.bind(2, id);
      insert.bind(3, previous);
      insert.bind(4, r.created_unix_ms);
      insert.bind(5, r.expires_unix_ms);
      insert.bind(6, input);
      insert.bind(7, response);
      insert.run();
      return MGW_OK;
    });
  });
}

mgw_status response_get(mgw_storage* storage, int64_t tenant_id, mgw_str id, int64_t now_unix_ms,
                        const mgw_row_sink* out, const mgw_text_sink* error) noexcept {
  return guarded(error, "response get", [&] {
    auto& db = database_of(storage);
    response_tenant_arg(tenant_id, "tenant_id");
    const auto key = response_id_arg(id, "id", false);
    const auto& sink = response_sink_arg(out);
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
    response_tenant_arg(tenant_id, "tenant_id");
    const auto key = response_id_arg(id, "id", false);
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
    response_tenant_arg(after_tenant_id, "after_tenant_id");
    const auto after = response_id_arg(after_id, "after_id", true);
    if (limit < 1 || limit > kMaxResponsePage)
      throw Failure(MGW_INVALID_ARGUMENT, "limit: must be 1 to 1000");
    const auto& sink = response_sink_arg(out);
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
