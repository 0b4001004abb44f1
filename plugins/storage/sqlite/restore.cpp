// ABI 1.5 restore hooks (`modelgw storage copy`): rows stored with the ids
// of the database they come from, and the ledger windows' spend listed and
// stored. Each restore is idempotent: an equal row is OK, a different one
// holding the id or a unique value is MGW_CONFLICT and nothing changes.
// SQLite assigns new ids above the largest (INTEGER PRIMARY KEY), so creates
// after a restore never collide.
#include <modelgw/sdk.hpp>

#include <string>

#include "args.h"
#include "storage.h"

namespace mgw_sqlite {
namespace {

[[noreturn]] void differs(const char* what, std::int64_t id) {
  throw Failure(MGW_CONFLICT, std::string(what) + " " + std::to_string(id) +
                                  " is already stored with other values (this database is not a copy of "
                                  "the source, or the source changed since the copy began)");
}

void require_tenant(Connection& c, std::int64_t tenant_id) {
  auto tenant = c.statement("SELECT 1 FROM tenants WHERE id = ?1");
  tenant.bind(1, tenant_id);
  if (!tenant.step())
    throw Failure(MGW_INVALID_ARGUMENT, "tenant_id: no tenant " + std::to_string(tenant_id));
}

}  // namespace

mgw_status tenant_restore(mgw_storage* storage, const mgw_tenant_record* record,
                          const mgw_text_sink* error) noexcept {
  return guarded(error, "tenant restore", [&] {
    auto& db = database_of(storage);
    if (record == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "record: NULL");
    const auto t = read_growable(*record);
    const auto name = bytes_arg(t.name, "name");
    const auto settings = bytes_arg(t.settings_json, "settings_json");
    if (t.id <= 0) throw Failure(MGW_INVALID_ARGUMENT, "id: must be positive");
    if (name.empty()) throw Failure(MGW_INVALID_ARGUMENT, "name: must not be empty");
    return db.write([&](Connection& c) {
      auto same = c.statement("SELECT name, created_unix_ms, settings_json FROM tenants WHERE id = ?1");
      same.bind(1, t.id);
      if (same.step()) {
        if (mgw::view(same.str(0)) != name || same.int64(1) != t.created_unix_ms ||
            mgw::view(same.str(2)) != (settings.empty() ? "{}" : settings))
          differs("tenant", t.id);
        return MGW_OK;
      }
      auto insert = c.statement(
          "INSERT INTO tenants (id, name, created_unix_ms, settings_json) VALUES (?1, ?2, ?3, ?4)");
      insert.bind(1, t.id);
      insert.bind(2, name);
      insert.bind(3, t.created_unix_ms);
      insert.bind(4, settings.empty() ? std::string_view("{}") : settings);
      insert.run();
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
    const auto hash = bytes_arg(k.key_hash, "key_hash");
    const auto prefix = bytes_arg(k.display_prefix, "display_prefix");
    const auto scopes = bytes_arg(k.scopes, "scopes");
    check_key_hash(hash);
    if (k.id <= 0) throw Failure(MGW_INVALID_ARGUMENT, "id: must be positive");
    return db.write([&](Connection& c) {
      auto same = c.statement(
          "SELECT tenant_id, key_hash, display_prefix, scopes, created_unix_ms, revoked_unix_ms "
          "FROM api_keys WHERE id = ?1");
      same.bind(1, k.id);
      if (same.step()) {
        const auto text = [&](int column) { return mgw::view(same.str(column)); };
        if (same.int64(0) != k.tenant_id || text(1) != hash || text(2) != prefix || text(3) != scopes ||
            same.int64(4) != k.created_unix_ms || same.int64(5) != k.revoked_unix_ms)
          differs("API key", k.id);
        return MGW_OK;
      }
      require_tenant(c, k.tenant_id);
      auto insert = c.statement(
          "INSERT INTO api_keys (id, tenant_id, key_hash, display_prefix, scopes, created_unix_ms, "
          "revoked_unix_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
      insert.bind(1, k.id);
      insert.bind(2, k.tenant_id);
      insert.bind(3, hash);
      insert.bind(4, prefix);
      insert.bind(5, scopes);
      insert.bind(6, k.created_unix_ms);
      insert.bind(7, k.revoked_unix_ms);
      insert.run();
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
    const auto scope = bytes_arg(b.scope, "scope");
    const auto subject = bytes_arg(b.subject, "subject");
    const auto name = bytes_arg(b.name, "name");
    const auto period = bytes_arg(b.window, "window");
    if (b.id <= 0) throw Failure(MGW_INVALID_ARGUMENT, "id: must be positive");
    return db.write([&](Connection& c) {
      auto same = c.statement(
          "SELECT tenant_id, scope, subject, name, period, limit_micros, created_unix_ms FROM budgets "
          "WHERE id = ?1");
      same.bind(1, b.id);
      if (same.step()) {
        const auto text = [&](int column) { return mgw::view(same.str(column)); };
        if (same.int64(0) != b.tenant_id || text(1) != scope || text(2) != subject || text(3) != name ||
            text(4) != period || same.int64(5) != b.limit_micros || same.int64(6) != b.created_unix_ms)
          differs("budget", b.id);
        return MGW_OK;
      }
      require_tenant(c, b.tenant_id);
      auto insert = c.statement(
          "INSERT INTO budgets (id, tenant_id, scope, subject, name, period, limit_micros, created_unix_ms) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
      insert.bind(1, b.id);
      insert.bind(2, b.tenant_id);
      insert.bind(3, scope);
      insert.bind(4, subject);
      insert.bind(5, name);
      insert.bind(6, period);
      insert.bind(7, b.limit_micros);
      insert.bind(8, b.created_unix_ms);
      insert.run();
      return MGW_OK;
    });
  });
}

mgw_status ledger_list(mgw_storage* storage, const mgw_row_sink* out, const mgw_text_sink* error) noexcept {
  return guarded(error, "ledger list", [&] {
    auto& db = database_of(storage);
    return db.read([&](Connection& c) {
      auto select = c.statement(
          "SELECT account, window_start, spent FROM ledger_windows ORDER BY account, window_start");
      while (select.step()) {
        if (out == nullptr || out->struct_size < MGW_ROW_SINK_SIZE_1_5 ||
            out->callback_ledger_window == nullptr)
          continue;
        mgw_ledger_window row{};
        row.struct_size = sizeof row;
        row.account = select.str(0);  // borrowed from SQLite until the next step
        row.window_start_unix_ms = select.int64(1);
        row.spent = select.int64(2);
        out->callback_ledger_window(out->host_data, &row);
      }
      return MGW_OK;
    });
  });
}

mgw_status ledger_restore(mgw_storage* storage, const mgw_ledger_window* window,
                          const mgw_text_sink* error) noexcept {
  return guarded(error, "ledger restore", [&] {
    auto& db = database_of(storage);
    if (window == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "window: NULL");
    const auto w = read_growable(*window);
    const auto account = bytes_arg(w.account, "account");
    if (account.empty()) throw Failure(MGW_INVALID_ARGUMENT, "account: empty");
    if (w.spent < 0) throw Failure(MGW_INVALID_ARGUMENT, "spent: must not be negative");
    return db.write([&](Connection& c) {
      auto same = c.statement("SELECT spent FROM ledger_windows WHERE account = ?1 AND window_start = ?2");
      same.bind(1, account);
      same.bind(2, w.window_start_unix_ms);
      if (same.step()) {
        if (same.int64(0) != w.spent)
          throw Failure(MGW_CONFLICT, "ledger window already stored with another spend");
        return MGW_OK;
      }
      auto insert =
          c.statement("INSERT INTO ledger_windows (account, window_start, spent) VALUES (?1, ?2, ?3)");
      insert.bind(1, account);
      insert.bind(2, w.window_start_unix_ms);
      insert.bind(3, w.spent);
      insert.run();
      return MGW_OK;
    });
  });
}

}  // namespace mgw_sqlite
