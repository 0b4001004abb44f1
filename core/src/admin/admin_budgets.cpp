// Budgets and credit top-ups, for the admin surface and the CLI. Every
// change goes through record_change; amounts are checked here (positive,
// at most budget::kMaxMoneyMicros) before the store sees them.
#include "admin/admin_service.h"

#include "budget/budget_report.h"
#include "budget/feature_name.h"
#include "budget/money.h"

#include <algorithm>

namespace modelgw::admin {
namespace {

using nlohmann::json;

[[noreturn]] void invalid(const std::string& param, const std::string& message) {
  throw AdminError(errors::bad_request("invalid_parameter", message, param));
}

std::int64_t amount_of(const json& spec, const char* key, const char* what) {
  auto it = spec.find(key);
  if (it == spec.end() || it->is_null()) {
    throw AdminError(
        errors::bad_request("missing_required_field",
                            std::string("'") + key + "' is required: " + what + ", e.g. \"25.00\"", key));
  }
  auto micros = budget::parse_money(*it);
  if (!micros || *micros <= 0) {
    invalid(key, std::string("'") + key +
                     "' must be a positive amount of USD with at most 6 decimals, up to " +
                     budget::format_micros(budget::kMaxMoneyMicros) + " (got " +
                     errors::input_excerpt(it->is_string() ? it->get<std::string>() : it->dump(), 32) + ")");
  }
  return *micros;
}

std::string optional_name(const json& spec) {
  auto it = spec.find("name");
  if (it == spec.end() || it->is_null()) return {};
  if (!it->is_string() || it->get<std::string>().size() > 128)
    invalid("name", "'name' must be a string of at most 128 bytes");
  return it->get<std::string>();
}

void reject_unknown(const json& spec, std::initializer_list<const char*> known) {
  for (const auto& [member, value] : spec.items()) {
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return member == k; })) {
      invalid(errors::input_excerpt(member, 32),
              "'" + errors::input_excerpt(member, 32) + "' is not a budget field");
    }
  }
}

}  // namespace

plugins::BudgetRow AdminService::budget_or_404(std::int64_t budget_id) {
  for (auto& b : deps_.storage.list_budgets(0)) {
    if (b.id == budget_id) return b;
  }
  throw AdminError(errors::not_found("not_found", "no budget with id " + std::to_string(budget_id), "id"));
}

json AdminService::list_budgets(const std::string& tenant) {
  const auto t = tenant_or_404(tenant);
  return budget::budgets_report(deps_.storage, t.id, deps_.now_unix_ms());
}

json AdminService::create_budget(const Actor& actor, const std::string& tenant, const json& spec) {
  const auto t = tenant_or_404(tenant);
  reject_unknown(spec, {"scope", "feature", "key_id", "window", "limit", "name"});
  plugins::BudgetRow row;
  row.tenant_id = t.id;
  row.scope =
      spec.value("scope", json("tenant")).is_string() ? spec.value("scope", std::string("tenant")) : "";
  if (row.scope != "tenant" && row.scope != "feature" && row.scope != "key") {
    invalid("scope", "'scope' must be \"tenant\", \"feature\" or \"key\" (credits: POST .../credits)");
  }
  const json window = spec.value("window", json());
  if (!window.is_string() || (window != "hour" && window != "day" && window != "month")) {
    invalid("window", "'window' must be \"hour\", \"day\" or \"month\" (it resets at the next UTC boundary)");
  }
  row.window = window.get<std::string>();
  if (row.scope == "feature") {
    const json feature = spec.value("feature", json());
    if (!feature.is_string() || budget::check_feature(feature.get<std::string>())) {
      invalid("feature", "'feature' is required with scope \"feature\": 1 to 64 of A-Z a-z 0-9 . _ : -");
    }
    row.subject = feature.get<std::string>();
  } else if (spec.contains("feature")) {
    invalid("feature", "'feature' is only for scope \"feature\"");
  }
  if (row.scope == "key") {
    const json key = spec.value("key_id", json());
    if (!key.is_number_integer() || key.get<std::int64_t>() <= 0) {
      invalid("key_id", "'key_id' is required with scope \"key\": the id of one of the tenant's API keys");
    }
    const auto keys = deps_.storage.list_api_keys(t.id);
    if (std::none_of(keys.begin(), keys.end(),
                     [&](const auto& k) { return k.id == key.get<std::int64_t>(); })) {
      invalid("key_id", "tenant '" + t.name + "' has no API key " + std::to_string(key.get<std::int64_t>()));
    }
    row.subject = std::to_string(key.get<std::int64_t>());
  } else if (spec.contains("key_id")) {
    invalid("key_id", "'key_id' is only for scope \"key\"");
  }
  row.limit_micros = amount_of(spec, "limit", "the budget's limit in USD");
  row.name = optional_name(spec);
  row.created_unix_ms = deps_.now_unix_ms();
  try {
    row.id = deps_.storage.create_budget(row);
  } catch (const plugins::StorageError& e) {
    if (e.status() != MGW_CONFLICT) throw;
    throw AdminError(errors::ApiError{409, "conflict",
                                      "tenant '" + t.name + "' already has a " + row.window +
                                          " budget of this scope; "
                                          "change its limit instead",
                                      "scope"});
  }
  if (deps_.gate != nullptr) deps_.gate->forget(t.name);
  record_change(deps_.audit, actor, t.id, "budget.create",
                "budget " + std::to_string(row.id) + " (tenant " + t.name + ", " + row.scope +
                    (row.subject.empty() ? "" : " " + row.subject) + ", " + row.window + ", " +
                    budget::format_micros(row.limit_micros) + " USD)");
  return budget::budget_json(deps_.storage, row, deps_.now_unix_ms());
}

json AdminService::update_budget(const Actor& actor, std::int64_t budget_id, const json& spec) {
  auto row = budget_or_404(budget_id);
  reject_unknown(spec, {"limit"});
  if (row.scope == "credit") invalid("limit", "a credit account changes by top-ups: POST .../credits");
  const std::int64_t limit = amount_of(spec, "limit", "the budget's new limit in USD");
  auto set = deps_.storage.set_budget_limit(budget_id, true, limit);
  if (!set)
    throw AdminError(errors::not_found("not_found", "no budget with id " + std::to_string(budget_id), "id"));
  row.limit_micros = *set;
  forget_tenant_of(row);
  record_change(deps_.audit, actor, row.tenant_id, "budget.update",
                "budget " + std::to_string(budget_id) + " (limit " + budget::format_micros(limit) + " USD)");
  return budget::budget_json(deps_.storage, row, deps_.now_unix_ms());
}

json AdminService::delete_budget(const Actor& actor, std::int64_t budget_id) {
  auto row = budget_or_404(budget_id);
  if (!deps_.storage.delete_budget(budget_id)) {
    throw AdminError(errors::not_found("not_found", "no budget with id " + std::to_string(budget_id), "id"));
  }
  forget_tenant_of(row);
  record_change(deps_.audit, actor, row.tenant_id, "budget.delete", "budget " + std::to_string(budget_id));
  return json{{"id", budget_id}, {"deleted", true}};
}

json AdminService::top_up_credits(const Actor& actor, const std::string& tenant, const json& spec) {
  const auto t = tenant_or_404(tenant);
  reject_unknown(spec, {"amount"});
  const std::int64_t amount = amount_of(spec, "amount", "the USD to add to the balance");
  std::optional<plugins::BudgetRow> account;
  for (auto& b : deps_.storage.list_budgets(t.id)) {
    if (b.scope == "credit") account = b;
  }
  if (account && account->limit_micros > budget::kMaxMoneyMicros - amount) {
    invalid("amount", "this top-up would take the account past " +
                          budget::format_micros(budget::kMaxMoneyMicros) +
                          " USD ever topped up; it was refused");
  }
  bool opened = false;
  if (!account) {
    plugins::BudgetRow row;
    row.tenant_id = t.id;
    row.scope = "credit";
    row.window = "none";
    row.limit_micros = amount;
    row.created_unix_ms = deps_.now_unix_ms();
    try {
      row.id = deps_.storage.create_budget(row);
      account = row;
      opened = true;
    } catch (const plugins::StorageError& e) {
      if (e.status() != MGW_CONFLICT) throw;
      // Opened meanwhile by another caller: add to it.
      for (auto& b : deps_.storage.list_budgets(t.id)) {
        if (b.scope == "credit") account = b;
      }
      if (!account) throw;
    }
  }
  if (!opened) {
    // One atomic add in the store: concurrent top-ups never lose one.
    auto raised = deps_.storage.set_budget_limit(account->id, false, amount);
    if (!raised)
      throw AdminError(errors::internal_error("the credit account vanished during the top-up; retry"));
    account->limit_micros = *raised;
  }
  if (deps_.gate != nullptr) deps_.gate->forget(t.name);
  record_change(deps_.audit, actor, t.id, "credits.top_up",
                "tenant " + t.name + " (+" + budget::format_micros(amount) + " USD, account " +
                    std::to_string(account->id) + ")");
  return budget::budget_json(deps_.storage, *account, deps_.now_unix_ms());
}

json AdminService::get_credits(const std::string& tenant) {
  const auto t = tenant_or_404(tenant);
  for (const auto& b : deps_.storage.list_budgets(t.id)) {
    if (b.scope == "credit") return budget::budget_json(deps_.storage, b, deps_.now_unix_ms());
  }
  throw AdminError(errors::not_found(
      "not_found", "tenant '" + t.name + "' has no credit account; top it up to open one", "tenant"));
}

void AdminService::forget_tenant_of(const plugins::BudgetRow& row) {
  if (deps_.gate == nullptr) return;
  for (const auto& t : deps_.storage.list_tenants()) {
    if (t.id == row.tenant_id) deps_.gate->forget(t.name);
  }
}

}  // namespace modelgw::admin
