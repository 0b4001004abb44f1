// The storage hooks, one group per file: storage.cpp (open/close),
// tenants.cpp, api_keys.cpp, usage.cpp, prompts.cpp, usage_query.cpp, budgets.cpp, leases.cpp,
// idempotency.cpp, audit.cpp, restore.cpp, responses.cpp. plugin_entry.cpp puts them in the table. Every hook
// is noexcept and returns a status for anything that goes wrong.
#pragma once

#include <modelgw/plugin.h>

#include <cstddef>
#include <cstdint>

namespace mgw_sqlite {

mgw_status storage_open(const mgw_host_api* host, mgw_str config_json, mgw_storage** out,
                        const mgw_text_sink* error) noexcept;
void storage_close(mgw_storage* storage) noexcept;

mgw_status tenant_create(mgw_storage* storage, mgw_str name, int64_t now_unix_ms, int64_t* out_id,
                         const mgw_text_sink* error) noexcept;
mgw_status tenant_find(mgw_storage* storage, mgw_str name, const mgw_row_sink* out,
                       const mgw_text_sink* error) noexcept;
mgw_status tenant_list(mgw_storage* storage, const mgw_row_sink* out, const mgw_text_sink* error) noexcept;
mgw_status tenant_settings_set(mgw_storage* storage, int64_t tenant_id, mgw_str settings_json,
                               const mgw_text_sink* error) noexcept;

mgw_status api_key_create(mgw_storage* storage, const mgw_api_key_record* key, int64_t* out_id,
                          const mgw_text_sink* error) noexcept;
mgw_status api_key_find_by_hash(mgw_storage* storage, mgw_str key_hash, const mgw_row_sink* out,
                                const mgw_text_sink* error) noexcept;
mgw_status api_key_list(mgw_storage* storage, int64_t tenant_id, const mgw_row_sink* out,
                        const mgw_text_sink* error) noexcept;
mgw_status api_key_revoke(mgw_storage* storage, int64_t key_id, int64_t now_unix_ms,
                          const mgw_text_sink* error) noexcept;

mgw_status usage_insert(mgw_storage* storage, const mgw_usage_record* records, size_t count,
                        const mgw_text_sink* error) noexcept;
mgw_status usage_query(mgw_storage* storage, const mgw_usage_query* query, const mgw_row_sink* out,
                       const mgw_text_sink* error) noexcept;

mgw_status prompt_version_create(mgw_storage* storage, const mgw_prompt_version_record* record,
                                 int32_t activate, int64_t* out_version, const mgw_text_sink* error) noexcept;
mgw_status prompt_version_find(mgw_storage* storage, int64_t tenant_id, mgw_str name, int64_t version,
                               const mgw_row_sink* out, const mgw_text_sink* error) noexcept;
mgw_status prompt_version_list(mgw_storage* storage, int64_t tenant_id, mgw_str name, const mgw_row_sink* out,
                               const mgw_text_sink* error) noexcept;
mgw_status prompt_activate(mgw_storage* storage, int64_t tenant_id, mgw_str name, int64_t version,
                           const mgw_text_sink* error) noexcept;

// ABI 1.2: usage_query.cpp, budgets.cpp, leases.cpp.
mgw_status usage_page(mgw_storage* storage, const mgw_usage_filter* filter, const mgw_row_sink* out,
                      const mgw_text_sink* error) noexcept;
mgw_status usage_totals(mgw_storage* storage, const mgw_usage_filter* filter, const mgw_row_sink* out,
                        const mgw_text_sink* error) noexcept;
mgw_status budget_create(mgw_storage* storage, const mgw_budget_record* budget, int64_t* out_id,
                         const mgw_text_sink* error) noexcept;
mgw_status budget_list(mgw_storage* storage, int64_t tenant_id, const mgw_row_sink* out,
                       const mgw_text_sink* error) noexcept;
mgw_status budget_set_limit(mgw_storage* storage, int64_t budget_id, int32_t replace, int64_t amount,
                            int64_t* out_limit, const mgw_text_sink* error) noexcept;
mgw_status budget_delete(mgw_storage* storage, int64_t budget_id, const mgw_text_sink* error) noexcept;
mgw_status lease_take(mgw_storage* storage, const mgw_lease_request* request, mgw_lease_grant* out,
                      const mgw_text_sink* error) noexcept;
mgw_status lease_return(mgw_storage* storage, int64_t lease_id, int64_t keep,
                        const mgw_text_sink* error) noexcept;
mgw_status lease_renew(mgw_storage* storage, const int64_t* lease_ids, size_t count, int64_t expires_unix_ms,
                       const mgw_text_sink* error) noexcept;
mgw_status ledger_read(mgw_storage* storage, mgw_str account, int64_t window_start_unix_ms,
                       int64_t now_unix_ms, mgw_ledger_state* out, const mgw_text_sink* error) noexcept;

// ABI 1.3: idempotency.cpp.
mgw_status idempotency_claim(mgw_storage* storage, const mgw_idempotency_record* claim, int64_t now_unix_ms,
                             const mgw_row_sink* out, const mgw_text_sink* error) noexcept;
mgw_status idempotency_complete(mgw_storage* storage, const mgw_idempotency_record* done,
                                const mgw_text_sink* error) noexcept;
mgw_status idempotency_release(mgw_storage* storage, int64_t tenant_id, mgw_str key, mgw_str owner,
                               const mgw_text_sink* error) noexcept;
mgw_status idempotency_purge(mgw_storage* storage, int64_t now_unix_ms, int64_t limit, int64_t* out_removed,
                             const mgw_text_sink* error) noexcept;

// ABI 1.3: audit.cpp.
mgw_status audit_append(mgw_storage* storage, const mgw_audit_event* events, size_t count,
                        const mgw_text_sink* error) noexcept;
mgw_status audit_page(mgw_storage* storage, const mgw_audit_filter* filter, const mgw_row_sink* out,
                      const mgw_text_sink* error) noexcept;
mgw_status audit_heads(mgw_storage* storage, const mgw_row_sink* out, const mgw_text_sink* error) noexcept;

// ABI 1.5: restore.cpp.
mgw_status tenant_restore(mgw_storage* storage, const mgw_tenant_record* record,
                          const mgw_text_sink* error) noexcept;
mgw_status api_key_restore(mgw_storage* storage, const mgw_api_key_record* record,
                           const mgw_text_sink* error) noexcept;
mgw_status budget_restore(mgw_storage* storage, const mgw_budget_record* record,
                          const mgw_text_sink* error) noexcept;
mgw_status ledger_list(mgw_storage* storage, const mgw_row_sink* out, const mgw_text_sink* error) noexcept;
mgw_status ledger_restore(mgw_storage* storage, const mgw_ledger_window* window,
                          const mgw_text_sink* error) noexcept;

// ABI 1.9: responses.cpp.
mgw_status response_put(mgw_storage* storage, const mgw_response_record* record,
                        const mgw_text_sink* error) noexcept;
mgw_status response_get(mgw_storage* storage, int64_t tenant_id, mgw_str id, int64_t now_unix_ms,
                        const mgw_row_sink* out, const mgw_text_sink* error) noexcept;
mgw_status response_delete(mgw_storage* storage, int64_t tenant_id, mgw_str id,
                           const mgw_text_sink* error) noexcept;
mgw_status response_purge(mgw_storage* storage, int64_t now_unix_ms, int64_t limit, int64_t* out_removed,
                          const mgw_text_sink* error) noexcept;
mgw_status response_page(mgw_storage* storage, int64_t after_tenant_id, mgw_str after_id, int64_t limit,
                         const mgw_row_sink* out, const mgw_text_sink* error) noexcept;

}  // namespace mgw_sqlite
