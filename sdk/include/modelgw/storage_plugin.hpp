// Optional C++ helper: the C ABI surface of a storage plugin (entry symbol,
// descriptor, the whole mgw_storage_hooks table, opening and closing the
// handle) around hooks the plugin writes as plain functions, plus the
// exception fence (storage/guard.hpp) and the argument checks
// (storage/args.hpp) every hook needs. A storage plugin starts from it:
//
//   // acme.h: every hook of mgw_storage_hooks, declared in the plugin's namespace
//   struct mgw_storage { ... };  // the plugin's handle: one open database
//   namespace acme {
//   MGW_STORAGE_DECLARE_HOOKS()
//   }
//
//   // tenants.cpp: each hook, named as its slot without "on_"
//   mgw_status acme::tenant_list(mgw_storage* s, const mgw_row_sink* out,
//                                const mgw_text_sink* error) noexcept {
//     return mgw::storage::guarded(error, "tenant list", [&] { ...; return MGW_OK; });
//   }
//
//   // storage.cpp: open/close, and the entry symbol (once per shared object)
//   mgw_status acme::storage_open(const mgw_host_api* host, mgw_str config_json, mgw_storage** out,
//                                 const mgw_text_sink* error) noexcept {
//     return mgw::storage::open_handle(out, error, [&] {
//       return std::make_unique<mgw_storage>(host, mgw::storage::text_arg(config_json, "storage.options"));
//     });
//   }
//   void acme::storage_close(mgw_storage* s) noexcept { delete s; }
//   MGW_STORAGE_PLUGIN(acme, "acme", "1.0.0")
//
// A hook that is declared but not written fails the link (the SDK links
// plugins with --no-undefined), so the table is always complete. Every hook
// up to the SDK's ABI minor is in it; the host reads only what its own minor
// knows.
//
// NO EXCEPTION CROSSES THE ABI. Every hook is declared noexcept, so an
// exception that escapes one terminates the process rather than unwinding
// into the host: run each body through mgw::storage::guarded(), which turns a
// mgw::storage::Failure into its status and anything else into MGW_INTERNAL,
// with the reason on the hook's error sink. open_handle() and the entry
// symbol catch everything themselves.
//
// OWNERSHIP: the descriptor and the hook table are static, valid while the
// plugin is loaded. The handle (mgw_storage*) is the plugin's: open_handle()
// gives the host the pointer the factory's std::unique_ptr held, and
// storage_close() deletes it, called by the host exactly once. Every mgw_str
// and struct the host passes is borrowed for the call; rows go out through
// the host's sinks, which copy during the callback: strings in a row need to
// live only until the callback returns.
//
// THREADING: the host calls storage hooks from its blocking pool and its
// usage writer, concurrently on one handle, and may block in them: the
// plugin's handle must be safe for concurrent use (a connection pool, a lock).
// storage_open and storage_close are never concurrent with another hook on the
// same handle. Sinks are called only on the calling thread, during the hook.
// Nothing in this header keeps state.
//
// Header-only C++17; needs only the SDK's plugin.h and sdk.hpp and the C++
// standard library.
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/sdk.hpp>
#include <modelgw/storage/args.hpp>
#include <modelgw/storage/guard.hpp>

#include <cstddef>
#include <cstdint>

namespace mgw::storage {

// on_storage_open's fence: checks `out`, sets *out to NULL, calls `make`
// (returning a std::unique_ptr<mgw_storage>: parse the options, connect,
// migrate) and hands its pointer to the host only on success. A Failure from
// `make` is reported without a hook name in front, so its text reads as the
// operator should see it (e.g. "storage.options.path: ...").
template <typename Make>
mgw_status open_handle(mgw_storage** out, const mgw_text_sink* error, Make&& make) noexcept {
  return guarded(error, "", [&] {
    if (out == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "on_storage_open: out is NULL");
    *out = nullptr;
    *out = make().release();
    return MGW_OK;
  });
}

// The body of the exported entry symbol (see MGW_STORAGE_PLUGIN): the
// descriptor when the host speaks this ABI major, otherwise NULL after one log
// line starting with `who` (mgw::host_abi_supported).
inline const mgw_plugin_descriptor* entry(const mgw_host_api* host, const mgw_plugin_descriptor* descriptor,
                                          std::string_view who) noexcept {
  return host_abi_supported(host, who) ? descriptor : nullptr;
}

}  // namespace mgw::storage

// Every hook of mgw_storage_hooks in table order, as X(name, return type,
// (parameters)); the slot is on_<name>.
// clang-format off
#define MGW_STORAGE_HOOK_LIST(X)                                                                            \
  X(storage_open, mgw_status, (const mgw_host_api* host, mgw_str config_json, mgw_storage** out,           \
                               const mgw_text_sink* error))                                                 \
  X(storage_close, void, (mgw_storage* storage))                                                            \
  X(tenant_create, mgw_status, (mgw_storage* storage, mgw_str name, int64_t now_unix_ms, int64_t* out_id,  \
                                const mgw_text_sink* error))                                                \
  X(tenant_find, mgw_status, (mgw_storage* storage, mgw_str name, const mgw_row_sink* out,                 \
                              const mgw_text_sink* error))                                                  \
  X(tenant_list, mgw_status, (mgw_storage* storage, const mgw_row_sink* out, const mgw_text_sink* error))  \
  X(api_key_create, mgw_status, (mgw_storage* storage, const mgw_api_key_record* key, int64_t* out_id,     \
                                 const mgw_text_sink* error))                                               \
  X(api_key_find_by_hash, mgw_status, (mgw_storage* storage, mgw_str key_hash, const mgw_row_sink* out,    \
                                       const mgw_text_sink* error))                                         \
  X(api_key_list, mgw_status, (mgw_storage* storage, int64_t tenant_id, const mgw_row_sink* out,           \
                               const mgw_text_sink* error))                                                 \
  X(api_key_revoke, mgw_status, (mgw_storage* storage, int64_t key_id, int64_t now_unix_ms,                \
                                 const mgw_text_sink* error))                                               \
  X(usage_insert, mgw_status, (mgw_storage* storage, const mgw_usage_record* records, size_t count,        \
                               const mgw_text_sink* error))                                                 \
  X(usage_query, mgw_status, (mgw_storage* storage, const mgw_usage_query* query, const mgw_row_sink* out, \
                              const mgw_text_sink* error))                                                  \
  X(tenant_settings_set, mgw_status, (mgw_storage* storage, int64_t tenant_id, mgw_str settings_json,      \
                                      const mgw_text_sink* error))                                          \
  X(prompt_version_create, mgw_status, (mgw_storage* storage, const mgw_prompt_version_record* record,     \
                                        int32_t activate, int64_t* out_version, const mgw_text_sink* error)) \
  X(prompt_version_find, mgw_status, (mgw_storage* storage, int64_t tenant_id, mgw_str name,               \
                                      int64_t version, const mgw_row_sink* out, const mgw_text_sink* error)) \
  X(prompt_version_list, mgw_status, (mgw_storage* storage, int64_t tenant_id, mgw_str name,               \
                                      const mgw_row_sink* out, const mgw_text_sink* error))                 \
  X(prompt_activate, mgw_status, (mgw_storage* storage, int64_t tenant_id, mgw_str name, int64_t version,  \
                                  const mgw_text_sink* error))                                              \
  /* ABI 1.2 */                                                                                             \
  X(usage_page, mgw_status, (mgw_storage* storage, const mgw_usage_filter* filter, const mgw_row_sink* out, \
                             const mgw_text_sink* error))                                                   \
  X(usage_totals, mgw_status, (mgw_storage* storage, const mgw_usage_filter* filter,                       \
                               const mgw_row_sink* out, const mgw_text_sink* error))                        \
  X(budget_create, mgw_status, (mgw_storage* storage, const mgw_budget_record* budget, int64_t* out_id,    \
                                const mgw_text_sink* error))                                                \
  X(budget_list, mgw_status, (mgw_storage* storage, int64_t tenant_id, const mgw_row_sink* out,            \
                              const mgw_text_sink* error))                                                  \
  X(budget_set_limit, mgw_status, (mgw_storage* storage, int64_t budget_id, int32_t replace,               \
                                   int64_t amount, int64_t* out_limit, const mgw_text_sink* error))         \
  X(budget_delete, mgw_status, (mgw_storage* storage, int64_t budget_id, const mgw_text_sink* error))      \
  X(lease_take, mgw_status, (mgw_storage* storage, const mgw_lease_request* request, mgw_lease_grant* out, \
                             const mgw_text_sink* error))                                                   \
  X(lease_return, mgw_status, (mgw_storage* storage, int64_t lease_id, int64_t keep,                       \
                               const mgw_text_sink* error))                                                 \
  X(lease_renew, mgw_status, (mgw_storage* storage, const int64_t* lease_ids, size_t count,                \
                              int64_t expires_unix_ms, const mgw_text_sink* error))                         \
  X(ledger_read, mgw_status, (mgw_storage* storage, mgw_str account, int64_t window_start_unix_ms,         \
                              int64_t now_unix_ms, mgw_ledger_state* out, const mgw_text_sink* error))      \
  /* ABI 1.3 */                                                                                             \
  X(idempotency_claim, mgw_status, (mgw_storage* storage, const mgw_idempotency_record* claim,             \
                                    int64_t now_unix_ms, const mgw_row_sink* out,                           \
                                    const mgw_text_sink* error))                                            \
  X(idempotency_complete, mgw_status, (mgw_storage* storage, const mgw_idempotency_record* done,           \
                                       const mgw_text_sink* error))                                         \
  X(idempotency_release, mgw_status, (mgw_storage* storage, int64_t tenant_id, mgw_str key, mgw_str owner, \
                                      const mgw_text_sink* error))                                          \
  X(idempotency_purge, mgw_status, (mgw_storage* storage, int64_t now_unix_ms, int64_t limit,              \
                                    int64_t* out_removed, const mgw_text_sink* error))                      \
  X(audit_append, mgw_status, (mgw_storage* storage, const mgw_audit_event* events, size_t count,          \
                               const mgw_text_sink* error))                                                 \
  X(audit_page, mgw_status, (mgw_storage* storage, const mgw_audit_filter* filter, const mgw_row_sink* out, \
                             const mgw_text_sink* error))                                                   \
  X(audit_heads, mgw_status, (mgw_storage* storage, const mgw_row_sink* out, const mgw_text_sink* error))  \
  /* ABI 1.5 */                                                                                             \
  X(tenant_restore, mgw_status, (mgw_storage* storage, const mgw_tenant_record* record,                    \
                                 const mgw_text_sink* error))                                               \
  X(api_key_restore, mgw_status, (mgw_storage* storage, const mgw_api_key_record* record,                  \
                                  const mgw_text_sink* error))                                              \
  X(budget_restore, mgw_status, (mgw_storage* storage, const mgw_budget_record* record,                    \
                                 const mgw_text_sink* error))                                               \
  X(ledger_list, mgw_status, (mgw_storage* storage, const mgw_row_sink* out, const mgw_text_sink* error))  \
  X(ledger_restore, mgw_status, (mgw_storage* storage, const mgw_ledger_window* window,                    \
                                 const mgw_text_sink* error))                                               \
  /* ABI 1.9 */                                                                                             \
  X(response_put, mgw_status, (mgw_storage* storage, const mgw_response_record* record,                    \
                               const mgw_text_sink* error))                                                 \
  X(response_get, mgw_status, (mgw_storage* storage, int64_t tenant_id, mgw_str id, int64_t now_unix_ms,   \
                               const mgw_row_sink* out, const mgw_text_sink* error))                        \
  X(response_delete, mgw_status, (mgw_storage* storage, int64_t tenant_id, mgw_str id,                     \
                                  const mgw_text_sink* error))                                              \
  X(response_purge, mgw_status, (mgw_storage* storage, int64_t now_unix_ms, int64_t limit,                 \
                                 int64_t* out_removed, const mgw_text_sink* error))                         \
  X(response_page, mgw_status, (mgw_storage* storage, int64_t after_tenant_id, mgw_str after_id,           \
                                int64_t limit, const mgw_row_sink* out, const mgw_text_sink* error))        \
  /* ABI 1.12 */                                                                                            \
  X(idempotency_claim_batch, mgw_status, (mgw_storage* storage, const mgw_idempotency_record* rows,        \
                                          size_t count, int64_t now_unix_ms, mgw_status* out_statuses,      \
                                          const mgw_row_sink* held, const mgw_text_sink* error))            \
  X(idempotency_finish_batch, mgw_status, (mgw_storage* storage, const mgw_idempotency_record* rows,       \
                                           size_t count, mgw_status* out_statuses,                          \
                                           const mgw_text_sink* error))
// clang-format on

#define MGW_STORAGE_DETAIL_DECLARE_(name, ret, params) ret name params noexcept;
#define MGW_STORAGE_DETAIL_SLOT_(name, ret, params) hooks.on_##name = &name;

// Declares every hook, noexcept, in the current namespace (one per slot of
// mgw_storage_hooks, named as the slot without "on_"). The plugin defines
// each one.
#define MGW_STORAGE_DECLARE_HOOKS() MGW_STORAGE_HOOK_LIST(MGW_STORAGE_DETAIL_DECLARE_)

// Defines the hook table and the descriptor from the hooks of namespace `ns`
// (declared there by MGW_STORAGE_DECLARE_HOOKS), and exports the entry symbol:
// once per shared object, at namespace scope. `name` must be a string literal
// (the gateway's `storage.plugin`); `version` a static string.
#define MGW_STORAGE_PLUGIN(ns, name, version)                                                          \
  namespace ns {                                                                                       \
  namespace mgw_storage_entry {                                                                        \
  constexpr mgw_storage_hooks make_hooks() noexcept {                                                  \
    mgw_storage_hooks hooks{};                                                                         \
    hooks.struct_size = sizeof(mgw_storage_hooks);                                                     \
    MGW_STORAGE_HOOK_LIST(MGW_STORAGE_DETAIL_SLOT_)                                                    \
    return hooks;                                                                                      \
  }                                                                                                    \
  constexpr mgw_storage_hooks kHooks = make_hooks();                                                   \
  constexpr mgw_plugin_descriptor kDescriptor = {sizeof(mgw_plugin_descriptor),                        \
                                                 MGW_ABI_MAJOR,                                        \
                                                 MGW_ABI_MINOR,                                        \
                                                 MGW_KIND_STORAGE,                                     \
                                                 name,                                                 \
                                                 version,                                              \
                                                 &kHooks};                                             \
  }                                                                                                    \
  }                                                                                                    \
  extern "C" __attribute__((visibility("default"))) const mgw_plugin_descriptor* modelgw_plugin_entry( \
      const mgw_host_api* host) {                                                                      \
    return ::mgw::storage::entry(host, &ns::mgw_storage_entry::kDescriptor, name " storage: ");        \
  }
