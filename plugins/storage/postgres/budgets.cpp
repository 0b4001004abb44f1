// Budget hooks: a tenant's spending limits and its credit account, one table.
// What each has spent lives with the ledger (leases.cpp).
#include <modelgw/sdk.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "args.h"
#include "rows.h"
#include "storage.h"

namespace mgw_pg {
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

void emit_budgets(const pqxx::result& rows, const mgw_row_sink* out) {
  if (out == nullptr ||
      out->struct_size < offsetof(mgw_row_sink, callback_budget) + sizeof(out->callback_budget) ||
      out->callback_budget == nullptr) {
    return;
  }
  for (const auto& row : rows) {
    mgw_budget_record b{};
    b.struct_size = sizeof b;
    b.id = int64_of(row[0]);
    b.tenant_id = int64_of(row[1]);
    b.scope = str_of(row[2]);
    b.subject = str_of(row[3]);
    b.name = str_of(row[4]);
    b.window = str_of(row[5]);
    b.limit_micros = int64_of(row[6]);
    b.created_unix_ms = int64_of(row[7]);
    out->callback_budget(out->host_data, &b);
  }
}

}  // namespace

mgw_status budget_create(mgw_storage* storage, const mgw_budget_record* budget, int64_t* out_id,
                         const mgw_text_sink* error) noexcept {
  return guarded(error, "budget create", [&] {
    auto& db = database_of(storage);
    if (budget == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "budget: NULL");
    const auto b = read_growable(*budget);
    const std::string scope(text_arg(b.scope, "scope"));
    const std::string subject(text_arg(b.subject, "subject"));
    const std::string name(text_arg(b.name, "name"));
    const std::string period(text_arg(b.window, "window"));
    check_budget(scope, subject, period, b.limit_micros);
    auto id = db.write([&](pqxx::work& tx) {
      if (tx.exec_prepared("tenant_exists", b.tenant_id).empty())
        throw Failure(MGW_INVALID_ARGUMENT, "tenant_id: no tenant " + std::to_string(b.tenant_id));
      if (!tx.exec_prepared("budget_taken", b.tenant_id, scope, subject, period).empty())
        throw Failure(MGW_CONFLICT, "the tenant already has a budget of this scope and window");
      // Two processes creating the same budget at once both get past the
      // check; the unique index refuses the second: CONFLICT as well.
      return int64_of(tx.exec_prepared1("budget_insert", b.tenant_id, scope, subject, name, period,
                                        b.limit_micros, b.created_unix_ms)[0]);
    });
    if (out_id != nullptr) *out_id = id;
    return MGW_OK;
  });
}

mgw_status budget_list(mgw_storage* storage, int64_t tenant_id, const mgw_row_sink* out,
                       const mgw_text_sink* error) noexcept {
  return guarded(error, "budget list", [&] {
    auto& db = database_of(storage);
    auto rows = db.read([&](pqxx::transaction_base& tx) {
      return tenant_id == 0 ? tx.exec_prepared("budget_list_all")
                            : tx.exec_prepared("budget_list_tenant", tenant_id);
    });
    emit_budgets(rows, out);
    return MGW_OK;
  });
}

mgw_status budget_set_limit(mgw_storage* storage, int64_t budget_id, int32_t replace, int64_t amount,
                            int64_t* out_limit, const mgw_text_sink* error) noexcept {
  return guarded(error, "budget set limit", [&] {
    auto& db = database_of(storage);
    auto limit = db.write([&](pqxx::work& tx) {
      // Locked: two top-ups at once both count.
      auto current = tx.exec_prepared("budget_lock", budget_id);
      if (current.empty()) throw Failure(MGW_NOT_FOUND, "no budget " + std::to_string(budget_id));
      std::int64_t next = amount;
      if (replace == 0 && __builtin_add_overflow(int64_of(current[0][0]), amount, &next))
        throw Failure(MGW_INVALID_ARGUMENT, "amount: the limit would overflow");
      if (next < 0) throw Failure(MGW_INVALID_ARGUMENT, "amount: the limit would be negative");
      tx.exec_prepared("budget_update_limit", budget_id, next);
      return next;
    });
    if (out_limit != nullptr) *out_limit = limit;
    return MGW_OK;
  });
}

mgw_status budget_delete(mgw_storage* storage, int64_t budget_id, const mgw_text_sink* error) noexcept {
  return guarded(error, "budget delete", [&] {
    auto& db = database_of(storage);
    return db.write([&](pqxx::work& tx) {
      if (tx.exec_prepared("budget_delete", budget_id).affected_rows() == 0)
        throw Failure(MGW_NOT_FOUND, "no budget " + std::to_string(budget_id));
      return MGW_OK;
    });
  });
}

}  // namespace mgw_pg
