// ABI 1.5 restore hooks (`modelgw storage copy`): rows stored with the ids
// of the database they come from, and the ledger windows' spend listed and
// stored. Each restore is idempotent: an equal row is OK, a different one
// holding the id or a unique value is MGW_CONFLICT and nothing changes.
//
// Unlike SQLite's INTEGER PRIMARY KEY, an identity column does not move past
// an id given explicitly, so each restore raises the table's sequence to at
// least the restored id: creates after a restore never collide. (setval is not
// transactional; a copy runs into a database nothing else writes to yet.)
#include <string>
#include <string_view>

#include "args.h"
#include "rows.h"
#include "storage.h"

namespace mgw_pg {
namespace {

[[noreturn]] void differs(const char* what, std::int64_t id) {
  throw Failure(MGW_CONFLICT, std::string(what) + " " + std::to_string(id) +
                                  " is already stored with other values (this database is not a copy of "
                                  "the source, or the source changed since the copy began)");
}

void require_tenant(pqxx::work& tx, std::int64_t tenant_id) {
  if (tx.exec_prepared("tenant_exists", tenant_id).empty())
    throw Failure(MGW_INVALID_ARGUMENT, "tenant_id: no tenant " + std::to_string(tenant_id));
}

// Moves `table`'s id sequence to at least `id` (never down), so the next
// create gets an id above it. `table` is one of this plugin's own names.
void raise_sequence(pqxx::work& tx, const char* table, std::int64_t id) {
  tx.exec_params(std::string("SELECT setval(s, GREATEST($1, COALESCE(pg_sequence_last_value(s), 0))) "
                             "FROM (SELECT pg_get_serial_sequence('") +
                     table + "', 'id')::regclass AS s) AS q",
                 id);
}

std::string_view text_of(const pqxx::field& f) {
  return {f.c_str(), f.size()};
}

}  // namespace

mgw_status tenant_restore(mgw_storage* storage, const mgw_tenant_record* record,
                          const mgw_text_sink* error) noexcept {
  return guarded(error, "tenant restore", [&] {
    auto& db = database_of(storage);
    if (record == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "record: NULL");
    const auto t = read_growable(*record);
    const std::string name(text_arg(t.name, "name"));
    std::string settings(text_arg(t.settings_json, "settings_json"));
    if (settings.empty()) settings = "{}";
    if (t.id <= 0) throw Failure(MGW_INVALID_ARGUMENT, "id: must be positive");
    if (name.empty()) throw Failure(MGW_INVALID_ARGUMENT, "name: must not be empty");
    return db.write([&](pqxx::work& tx) {
      auto same =
          tx.exec_params("SELECT name, created_unix_ms, settings_json FROM tenants WHERE id = $1", t.id);
      if (!same.empty()) {
        if (text_of(same[0][0]) != name || int64_of(same[0][1]) != t.created_unix_ms ||
            text_of(same[0][2]) != settings)
          differs("tenant", t.id);
        return MGW_OK;
      }
      // A name another tenant holds fails the unique index: CONFLICT.
      tx.exec_params("INSERT INTO tenants (id, name, created_unix_ms, settings_json) VALUES ($1, $2, $3, $4)",
                     t.id, name, t.created_unix_ms, settings);
      raise_sequence(tx, "tenants", t.id);
      return MGW_OK;
    });
  });
}

mgw_status api_key_restore(mgw_storage* storage, const mgw_api_key_record* record,
                           const mgw_text_sink* error) noexcept {
  return guarded(error, "api key restore", [&] {
    auto& db = database_of(storage);
    if (record == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "record: NULL");
    const auto k = read_growable(*record);
    const std::string hash(text_arg(k.key_hash, "key_hash"));
    const std::string prefix(text_arg(k.display_prefix, "display_prefix"));
    const std::string scopes(text_arg(k.scopes, "scopes"));
    check_key_hash(hash);
    if (k.id <= 0) throw Failure(MGW_INVALID_ARGUMENT, "id: must be positive");
    return db.write([&](pqxx::work& tx) {
      auto same = tx.exec_params(
          "SELECT tenant_id, key_hash, display_prefix, scopes, created_unix_ms, revoked_unix_ms "
          "FROM api_keys WHERE id = $1",
          k.id);
      if (!same.empty()) {
        const auto& r = same[0];
        if (int64_of(r[0]) != k.tenant_id || text_of(r[1]) != hash || text_of(r[2]) != prefix ||
            text_of(r[3]) != scopes || int64_of(r[4]) != k.created_unix_ms ||
            int64_of(r[5]) != k.revoked_unix_ms)
          differs("API key", k.id);
        return MGW_OK;
      }
      require_tenant(tx, k.tenant_id);
      tx.exec_params(
          "INSERT INTO api_keys (id, tenant_id, key_hash, display_prefix, scopes, created_unix_ms, "
          "revoked_unix_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)",
          k.id, k.tenant_id, hash, prefix, scopes, k.created_unix_ms, k.revoked_unix_ms);
      raise_sequence(tx, "api_keys", k.id);
      return MGW_OK;
    });
  });
}

mgw_status budget_restore(mgw_storage* storage, const mgw_budget_record* record,
                          const mgw_text_sink* error) noexcept {
  return guarded(error, "budget restore", [&] {
    auto& db = database_of(storage);
    if (record == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "record: NULL");
    const auto b = read_growable(*record);
    const std::string scope(text_arg(b.scope, "scope"));
    const std::string subject(text_arg(b.subject, "subject"));
    const std::string name(text_arg(b.name, "name"));
    const std::string period(text_arg(b.window, "window"));
    if (b.id <= 0) throw Failure(MGW_INVALID_ARGUMENT, "id: must be positive");
    return db.write([&](pqxx::work& tx) {
      auto same = tx.exec_params(
          "SELECT tenant_id, scope, subject, name, period, limit_micros, created_unix_ms FROM budgets "
          "WHERE id = $1",
          b.id);
      if (!same.empty()) {
        const auto& r = same[0];
        if (int64_of(r[0]) != b.tenant_id || text_of(r[1]) != scope || text_of(r[2]) != subject ||
            text_of(r[3]) != name || text_of(r[4]) != period || int64_of(r[5]) != b.limit_micros ||
            int64_of(r[6]) != b.created_unix_ms)
          differs("budget", b.id);
        return MGW_OK;
      }
      require_tenant(tx, b.tenant_id);
      tx.exec_params(
          "INSERT INTO budgets (id, tenant_id, scope, subject, name, period, limit_micros, created_unix_ms) "
          "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
          b.id, b.tenant_id, scope, subject, name, period, b.limit_micros, b.created_unix_ms);
      raise_sequence(tx, "budgets", b.id);
      return MGW_OK;
    });
  });
}

mgw_status ledger_list(mgw_storage* storage, const mgw_row_sink* out, const mgw_text_sink* error) noexcept {
  return guarded(error, "ledger list", [&] {
    auto& db = database_of(storage);
    auto rows = db.read([&](pqxx::transaction_base& tx) {
      return tx.exec(
          "SELECT account, window_start, spent FROM ledger_windows ORDER BY account, window_start");
    });
    if (out == nullptr || out->struct_size < MGW_ROW_SINK_SIZE_1_5 || out->callback_ledger_window == nullptr)
      return MGW_OK;
    for (const auto& r : rows) {
      mgw_ledger_window row{};
      row.struct_size = sizeof row;
      row.account = str_of(r[0]);  // borrowed from the result
      row.window_start_unix_ms = int64_of(r[1]);
      row.spent = int64_of(r[2]);
      out->callback_ledger_window(out->host_data, &row);
    }
    return MGW_OK;
  });
}

mgw_status ledger_restore(mgw_storage* storage, const mgw_ledger_window* window,
                          const mgw_text_sink* error) noexcept {
  return guarded(error, "ledger restore", [&] {
    auto& db = database_of(storage);
    if (window == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "window: NULL");
    const auto w = read_growable(*window);
    const std::string account(text_arg(w.account, "account"));
    if (account.empty()) throw Failure(MGW_INVALID_ARGUMENT, "account: empty");
    if (w.spent < 0) throw Failure(MGW_INVALID_ARGUMENT, "spent: must not be negative");
    return db.write([&](pqxx::work& tx) {
      auto inserted = tx.exec_params(
          "INSERT INTO ledger_windows (account, window_start, spent) VALUES ($1, $2, $3) "
          "ON CONFLICT (account, window_start) DO NOTHING RETURNING 1",
          account, w.window_start_unix_ms, w.spent);
      if (!inserted.empty()) return MGW_OK;
      auto same = tx.exec_prepared("ledger_window_lock", account, w.window_start_unix_ms);
      if (same.empty() || int64_of(same[0][0]) != w.spent)
        throw Failure(MGW_CONFLICT, "ledger window already stored with another spend");
      return MGW_OK;
    });
  });
}

}  // namespace mgw_pg
