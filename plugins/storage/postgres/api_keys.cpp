// API key hooks: create, find by hash (the hot path), list, revoke.
#include <string>

#include "args.h"
#include "rows.h"
#include "storage.h"

namespace mgw_pg {
namespace {

void emit_keys(const pqxx::result& rows, const mgw_row_sink* out) {
  if (out == nullptr || out->callback_api_key == nullptr) return;
  for (const auto& row : rows) {
    mgw_api_key_record record{};
    record.struct_size = sizeof record;
    record.id = int64_of(row[0]);
    record.tenant_id = int64_of(row[1]);
    record.tenant_name = str_of(row[2]);  // the strings are borrowed from the result
    record.key_hash = str_of(row[3]);
    record.display_prefix = str_of(row[4]);
    record.scopes = str_of(row[5]);
    record.created_unix_ms = int64_of(row[6]);
    record.revoked_unix_ms = int64_of(row[7]);
    out->callback_api_key(out->host_data, &record);
  }
}

}  // namespace

mgw_status api_key_create(mgw_storage* storage, const mgw_api_key_record* key, int64_t* out_id,
                          const mgw_text_sink* error) noexcept {
  return guarded(error, "api key create", [&] {
    auto& db = database_of(storage);
    if (key == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "key: NULL record");
    const auto record = read_growable(*key);
    const std::string hash(text_arg(record.key_hash, "key_hash"));
    check_key_hash(hash);
    const std::string prefix(text_arg(record.display_prefix, "display_prefix"));
    const std::string scopes(text_arg(record.scopes, "scopes"));
    // An unknown tenant_id fails the foreign key: INVALID_ARGUMENT.
    // A hash already stored fails the unique index: CONFLICT.
    auto id = db.write([&](pqxx::work& tx) {
      return int64_of(tx.exec_prepared1("api_key_insert", record.tenant_id, hash, prefix, scopes,
                                        record.created_unix_ms, record.revoked_unix_ms)[0]);
    });
    if (out_id != nullptr) *out_id = id;
    return MGW_OK;
  });
}

mgw_status api_key_find_by_hash(mgw_storage* storage, mgw_str key_hash, const mgw_row_sink* out,
                                const mgw_text_sink* error) noexcept {
  return guarded(error, "api key find", [&] {
    auto& db = database_of(storage);
    const std::string hash(text_arg(key_hash, "key_hash"));
    // Called once per request on a cache miss: a pooled connection, a
    // prepared statement, one lookup on the unique index, no transaction.
    auto rows =
        db.read([&](pqxx::transaction_base& tx) { return tx.exec_prepared("api_key_find_by_hash", hash); });
    if (rows.empty()) return MGW_NOT_FOUND;
    emit_keys(rows, out);
    return MGW_OK;
  });
}

mgw_status api_key_list(mgw_storage* storage, int64_t tenant_id, const mgw_row_sink* out,
                        const mgw_text_sink* error) noexcept {
  return guarded(error, "api key list", [&] {
    auto& db = database_of(storage);
    auto rows = db.read([&](pqxx::transaction_base& tx) {
      return tenant_id == 0 ? tx.exec_prepared("api_key_list_all")
                            : tx.exec_prepared("api_key_list_tenant", tenant_id);
    });
    emit_keys(rows, out);
    return MGW_OK;
  });
}

mgw_status api_key_revoke(mgw_storage* storage, int64_t key_id, int64_t now_unix_ms,
                          const mgw_text_sink* error) noexcept {
  return guarded(error, "api key revoke", [&] {
    auto& db = database_of(storage);
    // 0 means "active" in revoked_unix_ms, so it cannot be a revocation time.
    if (now_unix_ms <= 0) throw Failure(MGW_INVALID_ARGUMENT, "now_unix_ms: must be positive");
    return db.write([&](pqxx::work& tx) {
      // Only an active key changes, so a second revoke keeps the first time.
      if (tx.exec_prepared("api_key_revoke", key_id, now_unix_ms).affected_rows() > 0) return MGW_OK;
      // Nothing changed: already revoked (OK) or no such key.
      return tx.exec_prepared("api_key_exists", key_id).empty() ? MGW_NOT_FOUND : MGW_OK;
    });
  });
}

}  // namespace mgw_pg
