// Tenant hooks: create, find by name, list, replace settings.
#include "args.h"
#include "storage.h"

namespace mgw_sqlite {
namespace {

#define MGW_TENANT_COLUMNS "SELECT id, name, created_unix_ms, settings_json FROM tenants "

void emit_tenant(const Statement& row, const mgw_row_sink* out) {
  if (out == nullptr || out->callback_tenant == nullptr) return;
  mgw_tenant_record record{};
  record.struct_size = sizeof record;
  record.id = row.int64(0);
  record.name = row.str(1);  // borrowed from SQLite until the next step
  record.created_unix_ms = row.int64(2);
  record.settings_json = row.str(3);
  out->callback_tenant(out->host_data, &record);
}

}  // namespace

mgw_status tenant_create(mgw_storage* storage, mgw_str name, int64_t now_unix_ms, int64_t* out_id,
                         const mgw_text_sink* error) noexcept {
  return guarded(error, "tenant create", [&] {
    auto& db = database_of(storage);
    auto tenant = bytes_arg(name, "name");
    if (tenant.empty()) throw Failure(MGW_INVALID_ARGUMENT, "name: must not be empty");
    auto id = db.write([&](Connection& c) {
      auto insert = c.statement("INSERT INTO tenants (name, created_unix_ms) VALUES (?1, ?2)");
      insert.bind(1, tenant);
      insert.bind(2, now_unix_ms);
      insert.run();
      return c.last_insert_rowid();
    });
    if (out_id != nullptr) *out_id = id;
    return MGW_OK;
  });
}

mgw_status tenant_find(mgw_storage* storage, mgw_str name, const mgw_row_sink* out,
                       const mgw_text_sink* error) noexcept {
  return guarded(error, "tenant find", [&] {
    auto& db = database_of(storage);
    auto tenant = bytes_arg(name, "name");
    return db.read([&](Connection& c) {
      auto select = c.statement(MGW_TENANT_COLUMNS "WHERE name = ?1");
      select.bind(1, tenant);
      if (!select.step()) return MGW_NOT_FOUND;
      emit_tenant(select, out);
      return MGW_OK;
    });
  });
}

mgw_status tenant_list(mgw_storage* storage, const mgw_row_sink* out, const mgw_text_sink* error) noexcept {
  return guarded(error, "tenant list", [&] {
    auto& db = database_of(storage);
    return db.read([&](Connection& c) {
      auto select = c.statement(MGW_TENANT_COLUMNS "ORDER BY id");
      while (select.step()) emit_tenant(select, out);
      return MGW_OK;
    });
  });
}

mgw_status tenant_settings_set(mgw_storage* storage, int64_t tenant_id, mgw_str settings_json,
                               const mgw_text_sink* error) noexcept {
  return guarded(error, "tenant settings set", [&] {
    auto& db = database_of(storage);
    auto settings = bytes_arg(settings_json, "settings_json");
    if (settings.empty()) throw Failure(MGW_INVALID_ARGUMENT, "settings_json: must not be empty");
    return db.write([&](Connection& c) {
      auto update = c.statement("UPDATE tenants SET settings_json = ?2 WHERE id = ?1");
      update.bind(1, tenant_id);
      update.bind(2, settings);
      update.run();
      return c.changes() == 0 ? MGW_NOT_FOUND : MGW_OK;
    });
  });
}

#undef MGW_TENANT_COLUMNS

}  // namespace mgw_sqlite
