// Stored responses of the Responses API (ABI 1.9): one row per (tenant_id,
// id), kept as given. A put is INSERT ... ON CONFLICT DO NOTHING, which waits
// for a concurrent insert of the same key to commit, so of two processes
// putting the same id exactly one inserts and the other compares with the
// committed row: equal is OK (a copy run again), different is a conflict. The
// comparison runs in the database, so a 16 MiB document is not read back.
#include <modelgw/sdk.hpp>

#include <pqxx/pqxx>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "args.h"
#include "guard.h"
#include "hooks.h"
#include "rows.h"
#include "storage.h"

namespace mgw_pg {
namespace {

constexpr std::size_t kMaxResponseIdBytes = 128;
// Generous for a conversation turn; bounds what one row can make the host and
// the database hold.
constexpr std::size_t kMaxResponseJsonBytes = std::size_t{16} << 20;
constexpr std::int64_t kMaxResponsePage = 1000;

// An id of 1..128 bytes; `may_be_empty` for previous_id and a page's cursor.
std::string response_id_arg(mgw_str id, std::string_view field, bool may_be_empty) {
  const auto v = text_arg(id, field);
  if ((v.empty() && !may_be_empty) || v.size() > kMaxResponseIdBytes)
    throw Failure(MGW_INVALID_ARGUMENT,
                  std::string(field) + ": must be " + (may_be_empty ? "0" : "1") + " to 128 bytes");
  return std::string(v);
}

std::string response_json_arg(mgw_str json, std::string_view field) {
  const auto v = text_arg(json, field);
  if (v.empty()) throw Failure(MGW_INVALID_ARGUMENT, std::string(field) + ": empty (must be JSON)");
  if (v.size() > kMaxResponseJsonBytes)
    throw Failure(MGW_INVALID_ARGUMENT, std::string(field) + ": over 16 MiB");
  return std::string(v);
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

// A row of MGW_RESPONSE_COLUMNS (statements.cpp) to the sink; its strings are
// borrowed from the result, which the caller keeps.
void emit_response(const pqxx::row& row, const mgw_row_sink& out) {
  mgw_response_record r{};
  r.struct_size = sizeof r;
  r.tenant_id = int64_of(row[0]);
  r.id = str_of(row[1]);
  r.previous_id = str_of(row[2]);
  r.created_unix_ms = int64_of(row[3]);
  r.expires_unix_ms = int64_of(row[4]);
  r.input_json = str_of(row[5]);
  r.response_json = str_of(row[6]);
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
    return db.write([&](pqxx::work& tx) {
      if (!tx.exec_prepared("response_insert", r.tenant_id, id, previous, r.created_unix_ms,
                            r.expires_unix_ms, input, response)
               .empty())
        return MGW_OK;
      auto same = tx.exec_prepared("response_same", r.tenant_id, id, previous, r.created_unix_ms,
                                   r.expires_unix_ms, input, response);
      // Empty: deleted between the insert and this read; the caller may put it again.
      if (same.empty() || !same[0][0].as<bool>())
        throw Failure(MGW_CONFLICT, "response " + id + " of tenant " + std::to_string(r.tenant_id) +
                                        (same.empty() ? " was deleted while it was being stored"
                                                      : " is already stored with other values"));
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
    // An expired row is gone for the API even before a purge removes it.
    auto rows = db.read([&](pqxx::transaction_base& tx) {
      return tx.exec_prepared("response_get", tenant_id, key, now_unix_ms);
    });
    if (rows.empty()) return MGW_NOT_FOUND;
    emit_response(rows[0], sink);
    return MGW_OK;
  });
}

mgw_status response_delete(mgw_storage* storage, int64_t tenant_id, mgw_str id,
                           const mgw_text_sink* error) noexcept {
  return guarded(error, "response delete", [&] {
    auto& db = database_of(storage);
    response_tenant_arg(tenant_id, "tenant_id");
    const auto key = response_id_arg(id, "id", false);
    return db.write([&](pqxx::work& tx) {
      return tx.exec_prepared("response_delete", tenant_id, key).affected_rows() == 0 ? MGW_NOT_FOUND
                                                                                      : MGW_OK;
    });
  });
}

mgw_status response_purge(mgw_storage* storage, int64_t now_unix_ms, int64_t limit, int64_t* out_removed,
                          const mgw_text_sink* error) noexcept {
  return guarded(error, "response purge", [&] {
    auto& db = database_of(storage);
    if (limit <= 0) throw Failure(MGW_INVALID_ARGUMENT, "limit: must be positive");
    // Bounded batches keep each transaction short.
    const auto removed = db.write([&](pqxx::work& tx) {
      return static_cast<std::int64_t>(
          tx.exec_prepared("response_purge", now_unix_ms, limit).affected_rows());
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
    auto rows = db.read([&](pqxx::transaction_base& tx) {
      return tx.exec_prepared("response_page", after_tenant_id, after, limit);
    });
    for (const auto& row : rows) emit_response(row, sink);
    return MGW_OK;
  });
}

}  // namespace mgw_pg
