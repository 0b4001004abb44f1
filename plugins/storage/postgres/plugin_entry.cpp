// The one exported symbol: the descriptor and the storage hook table.
#include <modelgw/plugin.h>

#include <type_traits>

#include "hooks.h"

namespace {

// Designated initializers: the compiler checks every hook lands in its slot.
constexpr mgw_storage_hooks kHooks{
    .struct_size = sizeof(mgw_storage_hooks),
    .on_storage_open = &mgw_pg::storage_open,
    .on_storage_close = &mgw_pg::storage_close,
    .on_tenant_create = &mgw_pg::tenant_create,
    .on_tenant_find = &mgw_pg::tenant_find,
    .on_tenant_list = &mgw_pg::tenant_list,
    .on_api_key_create = &mgw_pg::api_key_create,
    .on_api_key_find_by_hash = &mgw_pg::api_key_find_by_hash,
    .on_api_key_list = &mgw_pg::api_key_list,
    .on_api_key_revoke = &mgw_pg::api_key_revoke,
    .on_usage_insert = &mgw_pg::usage_insert,
    .on_usage_query = &mgw_pg::usage_query,
    .on_tenant_settings_set = &mgw_pg::tenant_settings_set,
    .on_prompt_version_create = &mgw_pg::prompt_version_create,
    .on_prompt_version_find = &mgw_pg::prompt_version_find,
    .on_prompt_version_list = &mgw_pg::prompt_version_list,
    .on_prompt_activate = &mgw_pg::prompt_activate,
    .on_usage_page = &mgw_pg::usage_page,
    .on_usage_totals = &mgw_pg::usage_totals,
    .on_budget_create = &mgw_pg::budget_create,
    .on_budget_list = &mgw_pg::budget_list,
    .on_budget_set_limit = &mgw_pg::budget_set_limit,
    .on_budget_delete = &mgw_pg::budget_delete,
    .on_lease_take = &mgw_pg::lease_take,
    .on_lease_return = &mgw_pg::lease_return,
    .on_lease_renew = &mgw_pg::lease_renew,
    .on_ledger_read = &mgw_pg::ledger_read,
    .on_idempotency_claim = &mgw_pg::idempotency_claim,
    .on_idempotency_complete = &mgw_pg::idempotency_complete,
    .on_idempotency_release = &mgw_pg::idempotency_release,
    .on_idempotency_purge = &mgw_pg::idempotency_purge,
    .on_audit_append = &mgw_pg::audit_append,
    .on_audit_page = &mgw_pg::audit_page,
    .on_audit_heads = &mgw_pg::audit_heads,
    .on_tenant_restore = &mgw_pg::tenant_restore,
    .on_api_key_restore = &mgw_pg::api_key_restore,
    .on_budget_restore = &mgw_pg::budget_restore,
    .on_ledger_list = &mgw_pg::ledger_list,
    .on_ledger_restore = &mgw_pg::ledger_restore,
    .on_response_put = &mgw_pg::response_put,
    .on_response_get = &mgw_pg::response_get,
    .on_response_delete = &mgw_pg::response_delete,
    .on_response_purge = &mgw_pg::response_purge,
    .on_response_page = &mgw_pg::response_page,
};

constexpr mgw_plugin_descriptor kDescriptor{
    .struct_size = sizeof(mgw_plugin_descriptor),
    .abi_major = MGW_ABI_MAJOR,
    .abi_minor = MGW_ABI_MINOR,
    .kind = MGW_KIND_STORAGE,
    .name = "postgres",
    .version = MGW_POSTGRES_PLUGIN_VERSION,
    .hooks = &kHooks,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const mgw_plugin_descriptor* modelgw_plugin_entry(
    const mgw_host_api* host) {
  // The host refuses a different major version too; refusing here as well
  // keeps this plugin from using a host table laid out differently. Nothing is
  // logged then, since callback_log itself may sit elsewhere in that table.
  if (host != nullptr && host->abi_major != MGW_ABI_MAJOR) return nullptr;
  return &kDescriptor;
}

static_assert(std::is_same_v<decltype(&modelgw_plugin_entry), mgw_plugin_entry_fn>,
              "the entry symbol must have the type plugin.h names");
