// Pins the ABI v1 layout on LP64 (x86_64, aarch64): a change to any size or
// offset here breaks every plugin already built, so it must be a new major
// version, or a field added at the end (and then only the size changes).
#include <modelgw/plugin.h>

#include <gtest/gtest.h>

#include <cstddef>

static_assert(sizeof(void*) == 8, "layout pins are for LP64 targets");

static_assert(sizeof(mgw_str) == 16 && offsetof(mgw_str, len) == 8);
static_assert(sizeof(mgw_status) == 4 && sizeof(mgw_plugin_kind) == 4 && sizeof(mgw_log_level) == 4);
static_assert(sizeof(mgw_text_sink) == 16);

static_assert(offsetof(mgw_host_api, struct_size) == 0);
static_assert(offsetof(mgw_host_api, abi_major) == 4 && offsetof(mgw_host_api, abi_minor) == 6);
static_assert(offsetof(mgw_host_api, host_data) == 8);
static_assert(offsetof(mgw_host_api, callback_log_enabled) == 16);
static_assert(offsetof(mgw_host_api, callback_monotonic_ns) == 40 && sizeof(mgw_host_api) == 48);

static_assert(offsetof(mgw_plugin_descriptor, abi_major) == 4 && offsetof(mgw_plugin_descriptor, kind) == 8);
static_assert(offsetof(mgw_plugin_descriptor, name) == 16 && offsetof(mgw_plugin_descriptor, hooks) == 32);
static_assert(sizeof(mgw_plugin_descriptor) == 40);

static_assert(MGW_CALL_CONTEXT_SIZE_1_10 == 120 && offsetof(mgw_call_context, stream) == 64 &&
              offsetof(mgw_call_context, default_max_tokens) == 72 &&
              offsetof(mgw_call_context, prompt_tokens) == 80 && offsetof(mgw_call_context, members) == 88 &&
              offsetof(mgw_call_context, member_count) == 96);
static_assert(sizeof(mgw_json_member) == 32 && offsetof(mgw_json_member, value) == 16);
static_assert(sizeof(mgw_request_sink) == 48 && offsetof(mgw_request_sink, host_data) == 8);
static_assert(MGW_USAGE_SIZE_1_2 == 40 && offsetof(mgw_usage, prompt_tokens) == 8);
static_assert(sizeof(mgw_error_info) == 72 && offsetof(mgw_error_info, retry_after_ms) == 64);
static_assert(sizeof(mgw_response_sink) == 48 && offsetof(mgw_response_sink, host_data) == 8);
static_assert(sizeof(mgw_provider_hooks) == 88 && offsetof(mgw_provider_hooks, on_stream_destroy) == 64);
// ABI 1.4: parameters as data.
static_assert(offsetof(mgw_provider_hooks, on_provider_parameters) == 72);
static_assert(sizeof(mgw_param_spec) == 40 && offsetof(mgw_param_spec, handling) == 4 &&
              offsetof(mgw_param_spec, name) == 8 && offsetof(mgw_param_spec, target) == 16 &&
              offsetof(mgw_param_spec, min) == 24 && offsetof(mgw_param_spec, max) == 32);
static_assert(sizeof(mgw_param_sink) == 24 && offsetof(mgw_param_sink, callback_parameter) == 16);

// The frozen sizes (plugin.h): what each minor defined, which the loader
// compares against. They never change once released.
static_assert(MGW_PLUGIN_DESCRIPTOR_SIZE_1_0 == 40 && MGW_HOST_API_SIZE_1_0 == 48);
static_assert(MGW_PROVIDER_HOOKS_SIZE_1_0 == 72 && MGW_PROVIDER_HOOKS_SIZE_1_4 == 80 &&
              MGW_PROVIDER_HOOKS_SIZE_1_10 == 88 &&
              offsetof(mgw_provider_hooks, on_provider_operations) == 80);
static_assert(MGW_STORAGE_HOOKS_SIZE_1_0 == 136 && MGW_STORAGE_HOOKS_SIZE_1_2 == 216 &&
              MGW_STORAGE_HOOKS_SIZE_1_3 == 272 && MGW_STORAGE_HOOKS_SIZE_1_5 == 312 &&
              MGW_STORAGE_HOOKS_SIZE_1_9 == 352);
static_assert(MGW_PII_HOOKS_SIZE_1_0 == 48 && MGW_PII_TEXT_SIZE_1_0 == 60 && MGW_PII_SINK_SIZE_1_0 == 40 &&
              MGW_PII_FINDING_SIZE_1_0 == 40);
static_assert(MGW_CALL_CONTEXT_SIZE_1_0 == 88 && MGW_CALL_CONTEXT_SIZE_1_1 == 104 &&
              MGW_CALL_CONTEXT_SIZE_1_10 == 120 && offsetof(mgw_call_context, operation) == 104);
static_assert(MGW_USAGE_SIZE_1_0 == 32 && MGW_USAGE_SIZE_1_2 == 40 && MGW_ERROR_INFO_SIZE_1_0 == 72);
static_assert(MGW_REQUEST_SINK_SIZE_1_0 == 48 && MGW_RESPONSE_SINK_SIZE_1_0 == 48);
static_assert(MGW_USAGE_RECORD_SIZE_1_0 == 224 && MGW_USAGE_RECORD_SIZE_1_2 == 320 &&
              MGW_USAGE_RECORD_SIZE_1_6 == 336 && MGW_USAGE_RECORD_SIZE_1_8 == 352);
static_assert(MGW_ROW_SINK_SIZE_1_0 == 48 && MGW_ROW_SINK_SIZE_1_2 == 64 && MGW_ROW_SINK_SIZE_1_3 == 80 &&
              MGW_ROW_SINK_SIZE_1_5 == 88 && MGW_ROW_SINK_SIZE_1_9 == 96 && MGW_LEDGER_WINDOW_SIZE_1_5 == 40);
static_assert(MGW_TENANT_RECORD_SIZE_1_0 == 56 && MGW_USAGE_QUERY_SIZE_1_0 == 56);

static_assert(sizeof(mgw_pii_finding) == 40 && sizeof(mgw_pii_text) == 64 &&
              offsetof(mgw_pii_text, finding_size) == 56);
static_assert(sizeof(mgw_pii_sink) == 40 && offsetof(mgw_pii_sink, host_data) == 8 &&
              offsetof(mgw_pii_sink, callback_record) == 32 && sizeof(mgw_pii_hooks) == 48);

static_assert(sizeof(mgw_tenant_record) == 56 && offsetof(mgw_tenant_record, settings_json) == 40);
static_assert(sizeof(mgw_prompt_version_record) == 104 &&
              offsetof(mgw_prompt_version_record, created_unix_ms) == 96);
static_assert(sizeof(mgw_api_key_record) == 104 && offsetof(mgw_api_key_record, revoked_unix_ms) == 96);
static_assert(sizeof(mgw_usage_record) == 352 && offsetof(mgw_usage_record, created_unix_ms) == 160 &&
              offsetof(mgw_usage_record, prompt_version) == 184 &&
              offsetof(mgw_usage_record, pii_action) == 192 &&
              offsetof(mgw_usage_record, pii_findings) == 208);
// ABI 1.2: money, appended.
static_assert(offsetof(mgw_usage_record, seq) == 224 && offsetof(mgw_usage_record, feature) == 232 &&
              offsetof(mgw_usage_record, cached_prompt_tokens) == 248 &&
              offsetof(mgw_usage_record, cost_micros) == 256 && offsetof(mgw_usage_record, reason) == 288 &&
              offsetof(mgw_usage_record, charges) == 304 && offsetof(mgw_usage_record, charge_count) == 312);
// ABI 1.6
static_assert(offsetof(mgw_usage_record, trace_id) == 320);
// ABI 1.8
static_assert(offsetof(mgw_usage_record, operation) == 336);
static_assert(MGW_USAGE_SIZE_1_2 == 40 && offsetof(mgw_usage, cached_prompt_tokens) == 32);
// ABI 1.11
static_assert(sizeof(mgw_usage) == 48 && offsetof(mgw_usage, cache_write_prompt_tokens) == 40 &&
              MGW_USAGE_SIZE_1_11 == 48);
static_assert(sizeof(mgw_call_context) == 136 && offsetof(mgw_call_context, client_headers) == 120 &&
              offsetof(mgw_call_context, client_header_count) == 128 && MGW_CALL_CONTEXT_SIZE_1_11 == 136);
static_assert(sizeof(mgw_ledger_charge) == 16);
static_assert(MGW_USAGE_FILTER_SIZE_1_2 == 128 && offsetof(mgw_usage_filter, feature) == 56 &&
              offsetof(mgw_usage_filter, before_seq) == 96 && offsetof(mgw_usage_filter, group_by) == 112);
// ABI 1.8
static_assert(sizeof(mgw_usage_filter) == 144 && offsetof(mgw_usage_filter, operation) == 128 &&
              MGW_USAGE_FILTER_SIZE_1_8 == 144);
static_assert(sizeof(mgw_usage_group) == 64 && offsetof(mgw_usage_group, cost_micros) == 56);
static_assert(sizeof(mgw_budget_record) == 104 && offsetof(mgw_budget_record, limit_micros) == 88);
static_assert(sizeof(mgw_lease_request) == 88 && offsetof(mgw_lease_request, holder) == 72);
static_assert(sizeof(mgw_lease_grant) == 48 && sizeof(mgw_ledger_state) == 24);
static_assert(sizeof(mgw_usage_query) == 56);
static_assert(offsetof(mgw_row_sink, callback_prompt_version) == 40 &&
              offsetof(mgw_row_sink, callback_usage_group) == 56 &&
              offsetof(mgw_row_sink, callback_idempotency) == 64 &&
              offsetof(mgw_row_sink, callback_audit) == 72 &&
              offsetof(mgw_row_sink, callback_ledger_window) == 80);
// ABI 1.5
static_assert(sizeof(mgw_ledger_window) == 40 && offsetof(mgw_ledger_window, account) == 8 &&
              offsetof(mgw_ledger_window, spent) == 32);
static_assert(offsetof(mgw_storage_hooks, on_tenant_restore) == 272 &&
              offsetof(mgw_storage_hooks, on_ledger_restore) == 304 &&
              offsetof(mgw_storage_hooks, on_usage_query) == 88 &&
              offsetof(mgw_storage_hooks, on_prompt_activate) == 128 &&
              offsetof(mgw_storage_hooks, on_usage_page) == 136 &&
              offsetof(mgw_storage_hooks, on_ledger_read) == 208 &&
              offsetof(mgw_storage_hooks, on_idempotency_claim) == 216 &&
              offsetof(mgw_storage_hooks, on_idempotency_purge) == 240 &&
              offsetof(mgw_storage_hooks, on_audit_append) == 248 &&
              offsetof(mgw_storage_hooks, on_audit_heads) == 264);
// ABI 1.3
static_assert(sizeof(mgw_idempotency_record) == 104 && offsetof(mgw_idempotency_record, key) == 16 &&
              offsetof(mgw_idempotency_record, state) == 64 &&
              offsetof(mgw_idempotency_record, response) == 72 &&
              offsetof(mgw_idempotency_record, expires_unix_ms) == 96);
static_assert(MGW_AUDIT_EVENT_SIZE_1_3 == 152 && offsetof(mgw_audit_event, actor) == 40 &&
              offsetof(mgw_audit_event, hash) == 136);
// ABI 1.7
static_assert(sizeof(mgw_audit_event) == 168 && offsetof(mgw_audit_event, mac) == 152 &&
              MGW_AUDIT_EVENT_SIZE_1_7 == 168);
// ABI 1.9: stored responses, appended to the row sink and the storage table.
static_assert(sizeof(mgw_response_record) == 96 && MGW_RESPONSE_RECORD_SIZE_1_9 == 96 &&
              offsetof(mgw_response_record, tenant_id) == 8 && offsetof(mgw_response_record, id) == 16 &&
              offsetof(mgw_response_record, previous_id) == 32 &&
              offsetof(mgw_response_record, created_unix_ms) == 48 &&
              offsetof(mgw_response_record, expires_unix_ms) == 56 &&
              offsetof(mgw_response_record, input_json) == 64 &&
              offsetof(mgw_response_record, response_json) == 80);
static_assert(offsetof(mgw_row_sink, callback_response) == 88);
static_assert(offsetof(mgw_storage_hooks, on_response_put) == 312 &&
              offsetof(mgw_storage_hooks, on_response_get) == 320 &&
              offsetof(mgw_storage_hooks, on_response_delete) == 328 &&
              offsetof(mgw_storage_hooks, on_response_purge) == 336 &&
              offsetof(mgw_storage_hooks, on_response_page) == 344);
static_assert(sizeof(mgw_audit_filter) == 96 && offsetof(mgw_audit_filter, action) == 32 &&
              offsetof(mgw_audit_filter, ascending) == 80 && offsetof(mgw_audit_filter, limit) == 88);

// ABI 1.12: idempotency keys in batches, appended to the row sink and the
// storage table; the earlier frozen sizes are unchanged.
static_assert(sizeof(mgw_row_sink) == 104 && offsetof(mgw_row_sink, callback_idempotency_at) == 96 &&
              MGW_ROW_SINK_SIZE_1_12 == 104 && MGW_ROW_SINK_SIZE_1_9 == 96);
static_assert(sizeof(mgw_storage_hooks) == 368 &&
              offsetof(mgw_storage_hooks, on_idempotency_claim_batch) == 352 &&
              offsetof(mgw_storage_hooks, on_idempotency_finish_batch) == 360 &&
              MGW_STORAGE_HOOKS_SIZE_1_12 == 368 && MGW_STORAGE_HOOKS_SIZE_1_9 == 352);
static_assert(MGW_IDEMPOTENCY_PENDING == 1 && MGW_IDEMPOTENCY_DONE == 2 && MGW_IDEMPOTENCY_FREE == 3);
static_assert(sizeof(mgw_status) == 4);

TEST(AbiLayout, VersionIsOnePointTwelve) {
  EXPECT_EQ(MGW_ABI_MAJOR, 1);
  EXPECT_EQ(MGW_ABI_MINOR, 12);
  EXPECT_STREQ(MGW_ENTRY_SYMBOL, "modelgw_plugin_entry");
}

TEST(AbiLayout, HasFieldSeesOnlyWhatStructSizeCovers) {
  mgw_error_info e{};
  e.struct_size = offsetof(mgw_error_info, retryable);  // as written by an older peer
  EXPECT_TRUE(MGW_HAS_FIELD(&e, mgw_error_info, param));
  EXPECT_FALSE(MGW_HAS_FIELD(&e, mgw_error_info, retry_after_ms));
}
