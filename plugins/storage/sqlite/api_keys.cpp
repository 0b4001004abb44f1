// API key hooks: create, find by hash (the hot path), list, revoke.
#include "args.h"
#include "storage.h"

namespace mgw_sqlite {
namespace {

// Reads join the tenant's name in, as mgw_api_key_record carries it.
#define MGW_KEY_COLUMNS                                                                           \
  "SELECT k.id, k.tenant_id, t.name, k.key_hash, k.display_prefix, k.scopes, k.created_unix_ms, " \
  "k.revoked_unix_ms FROM api_keys AS k JOIN tenants AS t ON t.id = k.tenant_id "

void emit_key(const Statement& row, const mgw_row_sink* out) {
  if (out == nullptr || out->callback_api_key == nullptr) return;
  mgw_api_key_record record{};
  record.struct_size = sizeof record;
  record.id = row.int64(0);
  record.tenant_id = row.int64(1);
  record.tenant_name = row.str(2);  // the strings are borrowed from SQLite until the next step
  record.key_hash = row.str(3);
  record.display_prefix = row.str(4);
  record.scopes = row.str(5);
  record.created_unix_ms = row.int64(6);
  record.revoked_unix_ms = row.int64(7);
  out->callback_api_key(out->host_data, &record);
}

}  // namespace

mgw_status api_key_create(mgw_storage* storage, const mgw_api_key_record* key, int64_t* out_id,
                          const mgw_text_sink* error) noexcept {
  return guarded(error, "api key create", [&] {
    auto& db = database_of(storage);
    if (key == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "key: NULL record");
    const auto record = read_growable(*key);
    auto hash = bytes_arg(record.key_hash, "key_hash");
    check_key_hash(hash);
    auto prefix = bytes_arg(record.display_prefix, "display_prefix");
    auto scopes = bytes_arg(record.scopes, "scopes");
    auto id = db.write([&](Connection& c) {
      // An unknown tenant_id fails the foreign key: INVALID_ARGUMENT.
      // A hash already stored fails the unique index: CONFLICT.
      auto insert = c.statement(
          "INSERT INTO api_keys (tenant_id, key_hash, display_prefix, scopes, created_unix_ms, "
          "revoked_unix_ms) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
      insert.bind(1, record.tenant_id);
      insert.bind(2, hash);
      insert.bind(3, prefix);
      insert.bind(4, scopes);
      insert.bind(5, record.created_unix_ms);
      insert.bind(6, record.revoked_unix_ms);
      insert.run();
      return c.last_insert_rowid();
    });
    if (out_id != nullptr) *out_id = id;
    return MGW_OK;
  });
}

mgw_status api_key_find_by_hash(mgw_storage* storage, mgw_str key_hash, const mgw_row_sink* out,
                                const mgw_text_sink* error) noexcept {
  return guarded(error, "api key find", [&] {
    auto& db = database_of(storage);
    auto hash = bytes_arg(key_hash, "key_hash");
    // Called once per request on a cache miss: a pooled reader and a cached
    // statement, so this is one B-tree lookup on the unique index.
    return db.read([&](Connection& c) {
      auto select = c.statement(MGW_KEY_COLUMNS "WHERE k.key_hash = ?1");
      select.bind(1, hash);
      if (!select.step()) return MGW_NOT_FOUND;
      emit_key(select, out);
      return MGW_OK;
    });
  });
}

mgw_status api_key_list(mgw_storage* storage, int64_t tenant_id, const mgw_row_sink* out,
                        const mgw_text_sink* error) noexcept {
  return guarded(error, "api key list", [&] {
    auto& db = database_of(storage);
    return db.read([&](Connection& c) {
      // Two statements rather than "(?1 = 0 OR ...)", which would keep SQLite
      // from using the tenant index.
      auto select = tenant_id == 0 ? c.statement(MGW_KEY_COLUMNS "ORDER BY k.created_unix_ms, k.id")
                                   : c.statement(MGW_KEY_COLUMNS
                                                 "WHERE k.tenant_id = ?1 ORDER BY k.created_unix_ms, k.id");
      if (tenant_id != 0) select.bind(1, tenant_id);
      while (select.step()) emit_key(select, out);
      return MGW_OK;
    });
  });
}

mgw_status api_key_revoke(mgw_storage* storage, int64_t key_id, int64_t now_unix_ms,
                          const mgw_text_sink* error) noexcept {
  return guarded(error, "api key revoke", [&] {
    auto& db = database_of(storage);
    // 0 means "active" in revoked_unix_ms, so it cannot be a revocation time.
    if (now_unix_ms <= 0) throw Failure(MGW_INVALID_ARGUMENT, "now_unix_ms: must be positive");
    return db.write([&](Connection& c) {
      // Only an active key changes, so a second revoke keeps the first time.
      auto update =
          c.statement("UPDATE api_keys SET revoked_unix_ms = ?2 WHERE id = ?1 AND revoked_unix_ms = 0");
      update.bind(1, key_id);
      update.bind(2, now_unix_ms);
      update.run();
      if (c.changes() > 0) return MGW_OK;
      // Nothing changed: already revoked (OK) or no such key. Same transaction,
      // so the answer matches what the UPDATE saw.
      auto exists = c.statement("SELECT 1 FROM api_keys WHERE id = ?1");
      exists.bind(1, key_id);
      return exists.step() ? MGW_OK : MGW_NOT_FOUND;
    });
  });
}

#undef MGW_KEY_COLUMNS

}  // namespace mgw_sqlite
