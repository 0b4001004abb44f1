// The operations behind the internal admin surface (/internal/v1/*) and the
// CLI: tenants and their settings, API keys, named prompts. Both callers use
// this one class, so the shell and HTTP can do the same things with the same
// checks and the same answers (JSON objects).
#pragma once

#include "admin/change_log.h"
#include "admin/tenant_settings.h"
#include "audit/audit_log.h"
#include "errors/api_error.h"
#include "plugins/storage.h"
#include "prompts/prompt_store.h"
#include "tenants/tenant_gate.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>

namespace modelgw::admin {

// A refused operation, in the spec's error terms (status, code, param).
class AdminError : public std::runtime_error {
 public:
  explicit AdminError(errors::ApiError error) : std::runtime_error(error.message), error_(std::move(error)) {}
  const errors::ApiError& error() const { return error_; }

 private:
  errors::ApiError error_;
};

// The scopes a key or token can carry, in the order README lists them.
const std::vector<std::string>& known_scopes();

struct AdminDeps {
  plugins::Storage& storage;
  std::set<std::string> model_aliases;      // the catalog, for checking a prompt's model
  prompts::PromptStore* prompts = nullptr;  // told about prompt changes; may be null (the CLI)
  tenants::TenantGate* gate = nullptr;      // told about settings changes; may be null (the CLI)
  std::function<std::int64_t()> now_unix_ms;
  SettingsRules settings_rules;      // e.g. the PII modes a tenant may choose
  audit::AuditLog* audit = nullptr;  // where every change is recorded; null: the log line only
};

class AdminService {
 public:
  explicit AdminService(AdminDeps deps) : deps_(std::move(deps)) {}

  // Every method throws AdminError for a refusal and plugins::StorageError
  // when storage fails. `actor` says who asked (for the change log).

  nlohmann::json list_tenants();
  nlohmann::json get_tenant(const std::string& name);
  nlohmann::json create_tenant(const Actor& actor, const std::string& name);
  // Merges `patch` into the tenant's settings (a member set to null is
  // removed) after checking every member.
  nlohmann::json update_settings(const Actor& actor, const std::string& tenant, const nlohmann::json& patch);

  // Keys never leave as anything but their display prefix, except the new key
  // itself in the answer to create and rotate ("key"), once.
  nlohmann::json list_keys(const std::string& tenant);  // empty: every tenant
  nlohmann::json create_key(const Actor& actor, const std::string& tenant, const nlohmann::json& scopes);
  nlohmann::json revoke_key(const Actor& actor, std::int64_t key_id);
  // A new key for the same tenant and scopes; the old one is revoked at once.
  nlohmann::json rotate_key(const Actor& actor, std::int64_t key_id);

  nlohmann::json list_prompts(const std::string& tenant);
  nlohmann::json get_prompt(const std::string& tenant, const std::string& name);  // every version
  // `spec`: {"template": [...], "model": "...", "parameters": {...}, "activate": bool}.
  nlohmann::json add_prompt_version(const Actor& actor, const std::string& tenant, const std::string& name,
                                    const nlohmann::json& spec);
  nlohmann::json activate_prompt_version(const Actor& actor, const std::string& tenant,
                                         const std::string& name, std::int64_t version);

  // Budgets and the credit account (admin_budgets.cpp). `spec` of create:
  // {"scope": "tenant"|"feature"|"key", "feature": "...", "key_id": N,
  //  "window": "hour"|"day"|"month", "limit": "25.00", "name": "..."};
  // of update: {"limit": "30.00"} and/or {"name": "..."}.
  nlohmann::json list_budgets(const std::string& tenant);
  nlohmann::json create_budget(const Actor& actor, const std::string& tenant, const nlohmann::json& spec);
  nlohmann::json update_budget(const Actor& actor, std::int64_t budget_id, const nlohmann::json& spec);
  nlohmann::json delete_budget(const Actor& actor, std::int64_t budget_id);
  // Raises the tenant's credit balance by spec.amount (opening the account
  // on the first top-up); the account as it stands after.
  nlohmann::json top_up_credits(const Actor& actor, const std::string& tenant, const nlohmann::json& spec);
  nlohmann::json get_credits(const std::string& tenant);

  // A configuration reload: the catalog's aliases and the PII modes change.
  void set_catalog(std::set<std::string> model_aliases, SettingsRules rules);

 private:
  plugins::BudgetRow budget_or_404(std::int64_t budget_id);
  void forget_tenant_of(const plugins::BudgetRow& row);  // its cached budgets are stale
  plugins::Tenant tenant_or_404(const std::string& name);
  plugins::ApiKeyRow key_or_404(std::int64_t key_id);
  nlohmann::json mint_key(const Actor& actor, const plugins::Tenant& tenant, const std::string& scopes,
                          const char* action, std::int64_t replaces);

  AdminDeps deps_;
  // Guards deps_.model_aliases and deps_.settings_rules (set_catalog).
  mutable std::mutex catalog_mutex_;
};

// Checks a tenant name (1-64 of letters, digits, '-', '_', '.'); AdminError otherwise.
void check_tenant_name(const std::string& name);

// Normalizes scopes given as a space/comma separated string or a JSON array;
// AdminError for an unknown scope or none at all.
std::string normalize_scopes(const nlohmann::json& scopes);

}  // namespace modelgw::admin
