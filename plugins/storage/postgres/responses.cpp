// Stored responses of the Responses API (ABI 1.9): one row per (tenant_id,
// id), kept as given. A put is INSERT ... ON CONFLICT DO NOTHING, which waits
// for a concurrent insert of the same key to commit, so of two processes
// putting the same id exactly one inserts and the other compares with the
// committed row: equal is OK (a copy run again), different is a conflict. The
// comparison runs in the database, so a 16 MiB document is not read back.
#include <modelgw/sdk.hpp>

#include <pqxx/pqxx>

#include <cstdint>
#include <string>
#include <string_view>

#include "args.h"
#include "rows.h"
#include "storage.h"

namespace mgw_pg {
namespace {

namespace sdk = mgw::storage;

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
    const auto r = sdk::response_put_arg(record);
    // libpqxx 6 binds std::string, not std::string_view.
    const std::string id{r.id}, previous{r.previous_id}, input{r.input_json}, response{r.response_json};
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
    sdk::response_tenant_arg(tenant_id, "tenant_id");
    const std::string key{sdk::response_id_arg(id, "id", false)};
    const auto& sink = sdk::response_sink_arg(out);
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
    sdk::response_tenant_arg(tenant_id, "tenant_id");
    const std::string key{sdk::response_id_arg(id, "id", false)};
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
    sdk::response_tenant_arg(after_tenant_id, "after_tenant_id");
    const std::string after{sdk::response_id_arg(after_id, "after_id", true)};
    sdk::response_limit_arg(limit);
    const auto& sink = sdk::response_sink_arg(out);
    auto rows = db.read([&](pqxx::transaction_base& tx) {
      return tx.exec_prepared("response_page", after_tenant_id, after, limit);
    });
    for (const auto& row : rows) emit_response(row, sink);
    return MGW_OK;
  });
}

}  // namespace mgw_pg
