// Tenant hooks: create, find by name (the hot path), list, replace settings.
#include <string>

#include "args.h"
#include "rows.h"
#include "storage.h"

namespace mgw_pg {
namespace {

void emit_tenants(const pqxx::result& rows, const mgw_row_sink* out) {
  if (out == nullptr || out->callback_tenant == nullptr) return;
  for (const auto& row : rows) {
    mgw_tenant_record record{};
    record.struct_size = sizeof record;
    record.id = int64_of(row[0]);
    record.name = str_of(row[1]);  // borrowed from the result, alive until this returns
    record.created_unix_ms = int64_of(row[2]);
    record.settings_json = str_of(row[3]);
    out->callback_tenant(out->host_data, &record);
  }
}

}  // namespace

mgw_status tenant_create(mgw_storage* storage, mgw_str name, int64_t now_unix_ms, int64_t* out_id,
                         const mgw_text_sink* error) noexcept {
  return guarded(error, "tenant create", [&] {
    auto& db = database_of(storage);
    const std::string tenant(text_arg(name, "name"));
    if (tenant.empty()) throw Failure(MGW_INVALID_ARGUMENT, "name: must not be empty");
    // A name already taken fails the unique index: CONFLICT.
    auto id = db.write(
        [&](pqxx::work& tx) { return int64_of(tx.exec_prepared1("tenant_insert", tenant, now_unix_ms)[0]); });
    if (out_id != nullptr) *out_id = id;
    return MGW_OK;
  });
}

mgw_status tenant_find(mgw_storage* storage, mgw_str name, const mgw_row_sink* out,
                       const mgw_text_sink* error) noexcept {
  return guarded(error, "tenant find", [&] {
    auto& db = database_of(storage);
    const std::string tenant(text_arg(name, "name"));
    auto rows = db.read([&](pqxx::transaction_base& tx) { return tx.exec_prepared("tenant_find", tenant); });
    if (rows.empty()) return MGW_NOT_FOUND;
    emit_tenants(rows, out);
    return MGW_OK;
  });
}

mgw_status tenant_list(mgw_storage* storage, const mgw_row_sink* out, const mgw_text_sink* error) noexcept {
  return guarded(error, "tenant list", [&] {
    auto& db = database_of(storage);
    auto rows = db.read([&](pqxx::transaction_base& tx) { return tx.exec_prepared("tenant_list"); });
    emit_tenants(rows, out);
    return MGW_OK;
  });
}

mgw_status tenant_settings_set(mgw_storage* storage, int64_t tenant_id, mgw_str settings_json,
                               const mgw_text_sink* error) noexcept {
  return guarded(error, "tenant settings set", [&] {
    auto& db = database_of(storage);
    const std::string settings(text_arg(settings_json, "settings_json"));
    if (settings.empty()) throw Failure(MGW_INVALID_ARGUMENT, "settings_json: must not be empty");
    return db.write([&](pqxx::work& tx) {
      auto changed = tx.exec_prepared("tenant_settings_set", tenant_id, settings).affected_rows();
      return changed == 0 ? MGW_NOT_FOUND : MGW_OK;
    });
  });
}

}  // namespace mgw_pg
