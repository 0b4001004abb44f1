// Budget hooks: a tenant's spending limits and its credit account, one table.
// What each has spent lives with the ledger (leases.cpp).
#include <modelgw/sdk.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "args.h"
#include "storage.h"

namespace mgw_sqlite {
namespace {

void check_budget(std::string_view scope, std::string_view subject, std::string_view period,
                  std::int64_t limit) {
  const bool credit = scope == "credit";
  if (scope != "tenant" && scope != "feature" && scope != "key" && !credit)
    throw Failure(MGW_INVALID_ARGUMENT, "scope: must be tenant, feature, key or credit");
  if (credit ? period != "none" : (period != "hour" && period != "day" && period != "month"))
    throw Failure(MGW_INVALID_ARGUMENT,
                  credit ? "window: a credit account's is none" : "window: must be hour, day or month");
  if ((scope == "feature" || scope == "key") == subject.empty())
    throw Failure(MGW_INVALID_ARGUMENT, "subject: required for feature and key budgets only");
  if (limit < 0) throw Failure(MGW_INVALID_ARGUMENT, "limit_micros: must not be negative");
}

void emit_budget(const Statement& row, const mgw_row_sink* out) {
  if (out == nullptr ||
      out->struct_size < offsetof(mgw_row_sink, callback_budget) + sizeof(out->callback_budget) ||
      out->callback_budget == nullptr) {
    return;
  }
  mgw_budget_record b{};
  b.struct_size = sizeof b;
  b.id = row.int64(0);
  b.tenant_id = row.int64(1);
  b.scope = row.str(2);
  b.subject = row.str(3);
  b.name = row.str(4);
  b.window = row.str(5);
  b.limit_micros = row.int64(6);
  b.created_unix_ms = row.int64(7);
  out->callback_budget(out->host_data, &b);
}

}  // namespace

mgw_status budget_create(mgw_storage* storage, const mgw_budget_record* budget, int64_t* out_id,
                         const mgw_text_sink* error) noexcept {
  return guarded(error, "budget create", [&] {
    auto& db = database_of(storage);
    if (budget == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "budget: NULL");
    const auto b = read_growable(*budget);
    const auto scope = bytes_arg(b.scope, "scope");
    const auto subject = bytes_arg(b.subject, "subject");
    const auto name = bytes_arg(b.name, "name");
    const auto period = bytes_arg(b.window, "window");
    check_budget(scope, subject, period, b.limit_micros);
    return db.write([&](Connection& c) {
      {
        auto tenant = c.statement("SELECT 1 FROM tenants WHERE id = ?1");
        tenant.bind(1, b.tenant_id);
        if (!tenant.step())
          throw Failure(MGW_INVALID_ARGUMENT, "tenant_id: no tenant " + std::to_string(b.tenant_id));
      }
      {
        auto taken = c.statement(
            "SELECT 1 FROM budgets WHERE tenant_id = ?1 AND scope = ?2 AND subject = ?3 AND period = ?4");
        taken.bind(1, b.tenant_id);
        taken.bind(2, scope);
        taken.bind(3, subject);
        taken.bind(4, period);
        if (taken.step())
          throw Failure(MGW_CONFLICT, "the tenant already has a budget of this scope and window");
      }
      auto insert = c.statement(
          "INSERT INTO budgets (tenant_id, scope, subject, name, period, limit_micros, created_unix_ms) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id");
      insert.bind(1, b.tenant_id);
      insert.bind(2, scope);
      insert.bind(3, subject);
      insert.bind(4, name);
      insert.bind(5, period);
      insert.bind(6, b.limit_micros);
      insert.bind(7, b.created_unix_ms);
      if (!insert.step()) throw Failure(MGW_INTERNAL, "insert returned no id");
      if (out_id != nullptr) *out_id = insert.int64(0);
      return MGW_OK;
    });
  });
}

mgw_status budget_list(mgw_storage* storage, int64_t tenant_id, const mgw_row_sink* out,
                       const mgw_text_sink* error) noexcept {
  return guarded(error, "budget list", [&] {
    auto& db = database_of(storage);
    return db.read([&](Connection& c) {
      auto select = c.statement(
          tenant_id == 0
              ? "SELECT id, tenant_id, scope, subject, name, period, limit_micros, created_unix_ms "
                "FROM budgets WHERE ?1 = 0 ORDER BY id"
              : "SELECT id, tenant_id, scope, subject, name, period, limit_micros, created_unix_ms "
                "FROM budgets WHERE tenant_id = ?1 ORDER BY id");
      select.bind(1, tenant_id);
      while (select.step()) emit_budget(select, out);
      return MGW_OK;
    });
  });
}

mgw_status budget_set_limit(mgw_storage* storage, int64_t budget_id, int32_t replace, int64_t amount,
                            int64_t* out_limit, const mgw_text_sink* error) noexcept {
  return guarded(error, "budget set limit", [&] {
    auto& db = database_of(storage);
    return db.write([&](Connection& c) {
      std::int64_t current = 0;
      {
        auto select = c.statement("SELECT limit_micros FROM budgets WHERE id = ?1");
        select.bind(1, budget_id);
        if (!select.step()) throw Failure(MGW_NOT_FOUND, "no budget " + std::to_string(budget_id));
        current = select.int64(0);
      }
      std::int64_t limit = amount;
      if (replace == 0 && __builtin_add_overflow(current, amount, &limit))
        throw Failure(MGW_INVALID_ARGUMENT, "amount: the limit would overflow");
      if (limit < 0) throw Failure(MGW_INVALID_ARGUMENT, "amount: the limit would be negative");
      auto update = c.statement("UPDATE budgets SET limit_micros = ?2 WHERE id = ?1");
      update.bind(1, budget_id);
      update.bind(2, limit);
      update.run();
      if (out_limit != nullptr) *out_limit = limit;
      return MGW_OK;
    });
  });
}

mgw_status budget_delete(mgw_storage* storage, int64_t budget_id, const mgw_text_sink* error) noexcept {
  return guarded(error, "budget delete", [&] {
    auto& db = database_of(storage);
    return db.write([&](Connection& c) {
      auto remove = c.statement("DELETE FROM budgets WHERE id = ?1 RETURNING id");
      remove.bind(1, budget_id);
      if (!remove.step()) throw Failure(MGW_NOT_FOUND, "no budget " + std::to_string(budget_id));
      return MGW_OK;
    });
  });
}

}  // namespace mgw_sqlite
