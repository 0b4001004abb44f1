// The gateway's view of its storage plugin: typed C++ calls over
// mgw_storage_hooks, owning copies of every row.
#pragma once

#include "plugins/plugin_library.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::plugins {

class StorageError : public std::runtime_error {
 public:
  StorageError(mgw_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  mgw_status status() const { return status_; }

 private:
  mgw_status status_;
};

struct Tenant {
  std::int64_t id = 0;
  std::string name;
  std::int64_t created_unix_ms = 0;
  std::string settings_json = "{}";  // as stored; tenant/settings.h reads it
};

struct PromptVersionRow {
  std::int64_t tenant_id = 0;
  std::string name;
  std::int64_t version = 0;
  bool active = false;
  std::string template_json;
  std::string model;
  std::string parameters_json;
  std::int64_t created_unix_ms = 0;
};

struct ApiKeyRow {
  std::int64_t id = 0;
  std::int64_t tenant_id = 0;
  std::string tenant_name;
  std::string key_hash;
  std::string display_prefix;
  std::string scopes;
  std::int64_t created_unix_ms = 0;
  std::int64_t revoked_unix_ms = 0;
};

struct UsageRow {
  std::string request_id;
  std::int64_t tenant_id = 0;
  std::int64_t key_id = 0;
  std::string alias;
  std::string provider;
  std::string upstream_model;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t total_tokens = 0;
  int http_status = 0;
  std::string error_code;
  std::int64_t latency_us = 0;
  std::int64_t ttft_us = -1;
  bool streamed = false;
  std::int64_t created_unix_ms = 0;
  std::string prompt_name;  // empty when no named prompt was invoked
  std::int64_t prompt_version = 0;
  std::string pii_action;    // "blocked", "masked", "flagged"; empty when nothing was found
  std::string pii_findings;  // {"email":2}: categories and counts, never values; empty for none
  // Money (ABI 1.2). Amounts in micro-units of currency; prices per million tokens.
  std::int64_t seq = 0;  // storage's insertion order; set on reads
  std::string feature;   // X-Feature; empty for none
  std::int64_t cached_prompt_tokens = 0;
  // Of prompt_tokens, written into the vendor's cache (priced as such; not
  // stored: the cost is).
  std::int64_t cache_write_prompt_tokens = 0;
  std::int64_t cost_micros = 0;
  std::int64_t price_input_micros = 0;
  std::int64_t price_output_micros = 0;
  std::int64_t price_cached_micros = 0;
  std::string reason;  // internal refusal reason (BUDGET_EXCEEDED, CREDIT_INSUFFICIENT, RATE_LIMITED)
  // Insert only: the ledger leases this record settles, in its transaction.
  std::vector<mgw_ledger_charge> charges;
  // ABI 1.6: the W3C trace id (32 lowercase hex); empty for older records.
  std::string trace_id;
  // ABI 1.8: the API the request came through ("chat.completions",
  // "responses", later "messages", "embeddings"). Records from a store or a
  // journal that predate it read as chat completions, the only API there was.
  std::string operation = "chat.completions";
};

// Filters of GET /v1/usage (see mgw_usage_filter).
struct UsageFilter {
  std::int64_t tenant_id = 0;
  std::int64_t from_unix_ms = 0;
  std::int64_t to_unix_ms = 0;
  std::string model;
  std::optional<std::string> feature;
  std::int64_t key_id = 0;
  int status_min = 0;
  int status_max = 0;
  int stream = -1;
  std::int64_t before_seq = 0;
  std::int64_t limit = 100;
  std::string group_by;
  std::string operation;  // ABI 1.8: empty for any
};

struct UsageGroup {
  std::string key;
  std::int64_t requests = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;
  std::int64_t total_tokens = 0;
  std::int64_t cost_micros = 0;
};

struct BudgetRow {
  std::int64_t id = 0;
  std::int64_t tenant_id = 0;
  std::string scope;    // tenant, feature, key, credit
  std::string subject;  // feature name or key id; empty for tenant and credit
  std::string name;
  std::string window;  // hour, day, month, none
  std::int64_t limit_micros = 0;
  std::int64_t created_unix_ms = 0;
};

struct LeaseRequest {
  std::string account;
  std::int64_t window_start_unix_ms = 0;
  std::int64_t limit = 0;
  std::int64_t lease_id = 0;
  std::int64_t want = 0;
  std::int64_t at_least = 0;
  std::int64_t expires_unix_ms = 0;
  std::string holder;
};

struct LeaseGrant {
  std::int64_t lease_id = 0;
  std::int64_t added = 0;
  std::int64_t granted = 0;
  std::int64_t spent = 0;
  std::int64_t reserved = 0;
};

struct LedgerState {
  std::int64_t spent = 0;
  std::int64_t reserved = 0;
};

// One idempotency key of a tenant (see mgw_idempotency_record).
struct IdempotencyRow {
  std::int64_t tenant_id = 0;
  std::string key;
  std::string digest;
  std::string owner;  // the claiming request's request_id
  int state = MGW_IDEMPOTENCY_PENDING;
  std::string response;  // DONE: what is replayed (idempotency/stored_response.h)
  std::int64_t created_unix_ms = 0;
  std::int64_t expires_unix_ms = 0;
};

// What one row of a claim batch came to (ABI 1.12; see Storage::claim_idempotency_batch).
struct IdempotencyClaimOutcome {
  enum class Kind { claimed, held, failed };
  Kind kind = Kind::failed;
  IdempotencyRow held;  // Kind::held: the live row that holds the key
  std::string error;    // Kind::failed: why, for the log
};

// What one row of a finish batch came to.
struct IdempotencyFinishOutcome {
  enum class Kind { done, lapsed, failed };  // lapsed: a completion found no claim of its owner
  Kind kind = Kind::failed;
  std::string error;  // Kind::failed: why, for the log
};

// One audit event (see mgw_audit_event); audit/audit_event.h builds them.
struct AuditRow {
  std::int64_t id = 0;
  std::int64_t tenant_id = 0;
  std::int64_t seq = 0;
  std::int64_t created_unix_ms = 0;
  std::string actor;
  std::string action;
  std::string target;
  std::string request_id;
  std::string details_json = "{}";
  std::string prev_hash;
  std::string hash;
  std::string mac;  // ABI 1.7: HMAC of hash under the audit key; empty without one
};

struct AuditFilter {
  std::int64_t tenant_id = 0;
  std::int64_t from_unix_ms = 0;
  std::int64_t to_unix_ms = 0;
  std::string action;
  std::string actor;
  std::int64_t before_seq = 0;
  std::int64_t after_seq = 0;
  bool ascending = false;
  std::int64_t limit = 100;
};

// What one ledger account's window has spent (storage copy moves these).
struct LedgerWindow {
  std::string account;
  std::int64_t window_start_unix_ms = 0;
  std::int64_t spent = 0;
};

// One stored response of the Responses API (ABI 1.9, see mgw_response_record):
// kept per (tenant_id, id) for previous_response_id and GET/DELETE
// /v1/responses/{id}. The JSON is stored and returned as given.
struct StoredResponse {
  std::int64_t tenant_id = 0;
  std::string id, previous_id;  // previous_id empty: it continued none
  std::int64_t created_unix_ms = 0, expires_unix_ms = 0;
  std::string input_json, response_json;  // a JSON array of input items; the response object
};

struct UsageQuery {
  std::int64_t tenant_id = 0;
  std::string request_id;
  std::int64_t since_unix_ms = 0;
  std::int64_t until_unix_ms = 0;
  std::int64_t limit = 0;
};

class Storage {
 public:
  // Opens the store; throws PluginError with the plugin's reason.
  // `table_bytes` below the plugin's table makes the host treat it as an
  // older plugin's, hooks past it absent (tests of the fallbacks).
  Storage(std::shared_ptr<PluginLibrary> library, const nlohmann::json& options,
          std::size_t table_bytes = sizeof(mgw_storage_hooks));
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  // Each call throws StorageError on failure; a conflict has status MGW_CONFLICT.
  std::int64_t create_tenant(const std::string& name, std::int64_t now_unix_ms);
  std::optional<Tenant> find_tenant(const std::string& name);
  std::vector<Tenant> list_tenants();
  bool set_tenant_settings(std::int64_t tenant_id, const std::string& settings_json);  // false: no tenant

  std::int64_t create_api_key(const ApiKeyRow& key);
  std::optional<ApiKeyRow> find_api_key(const std::string& key_hash);
  std::vector<ApiKeyRow> list_api_keys(std::int64_t tenant_id);
  bool revoke_api_key(std::int64_t key_id, std::int64_t now_unix_ms);  // false when unknown

  void insert_usage(const std::vector<UsageRow>& rows);
  std::vector<UsageRow> query_usage(const UsageQuery& query);

  // Named prompts. A plugin built before they existed throws StorageError
  // with status MGW_UNSUPPORTED from each of these.
  std::int64_t create_prompt_version(const PromptVersionRow& row, bool activate);  // the new number
  std::optional<PromptVersionRow> find_prompt_version(std::int64_t tenant_id, const std::string& name,
                                                      std::int64_t version);  // 0: the active one
  std::vector<PromptVersionRow> list_prompt_versions(std::int64_t tenant_id, const std::string& name);
  bool activate_prompt_version(std::int64_t tenant_id, const std::string& name,
                               std::int64_t version);  // false: no such version

  // Usage queries, budgets and ledger leases (ABI 1.2). A plugin built
  // before them throws StorageError with status MGW_UNSUPPORTED from each;
  // supports_spend_control() says so without a call.
  bool supports_spend_control() const;
  std::vector<UsageRow> usage_page(const UsageFilter& filter);
  std::vector<UsageGroup> usage_totals(const UsageFilter& filter);
  std::int64_t create_budget(const BudgetRow& budget);          // the new id; MGW_CONFLICT when it exists
  std::vector<BudgetRow> list_budgets(std::int64_t tenant_id);  // 0: every tenant's
  // Replaces the limit, or adds `amount` to it; the new limit, or nullopt for an unknown id.
  std::optional<std::int64_t> set_budget_limit(std::int64_t budget_id, bool replace, std::int64_t amount);
  bool delete_budget(std::int64_t budget_id);  // false when unknown
  LeaseGrant take_lease(const LeaseRequest& request);
  void return_lease(std::int64_t lease_id, std::int64_t keep);
  void renew_leases(const std::vector<std::int64_t>& lease_ids, std::int64_t expires_unix_ms);
  LedgerState read_ledger(const std::string& account, std::int64_t window_start_unix_ms,
                          std::int64_t now_unix_ms);

  // Idempotency keys (ABI 1.3); supports_idempotency() says whether the
  // plugin has them. Claims the key for claim.owner: nullopt when it is now
  // the caller's, else the live row that holds it.
  bool supports_idempotency() const;
  std::optional<IdempotencyRow> claim_idempotency(const IdempotencyRow& claim, std::int64_t now_unix_ms);
  bool complete_idempotency(const IdempotencyRow& done);  // false: the claim is no longer the caller's
  void release_idempotency(std::int64_t tenant_id, const std::string& key, const std::string& owner);
  std::int64_t purge_idempotency(std::int64_t now_unix_ms, std::int64_t limit);  // rows removed
  // Group commit (ABI 1.12): many claims, or many finishes, in one storage
  // transaction; outcome i answers row i. A claim batch sees its rows in
  // order (a key twice: the second is held by the first). A finish row with
  // state MGW_IDEMPOTENCY_DONE completes its owner's claim; with
  // MGW_IDEMPOTENCY_FREE it releases it. Throws StorageError when the batch
  // failed as a whole (nothing of it written). A plugin without the batch
  // hooks (batches_idempotency() false) gets one 1.3 call per row, a row's
  // failure then failing only that row.
  bool batches_idempotency() const;
  std::vector<IdempotencyClaimOutcome> claim_idempotency_batch(const std::vector<IdempotencyRow>& claims,
                                                               std::int64_t now_unix_ms);
  std::vector<IdempotencyFinishOutcome> finish_idempotency_batch(const std::vector<IdempotencyRow>& rows);

  // The audit log (ABI 1.3). append_audit is all or none; false (nothing
  // appended) when a (tenant, seq) was taken by another process meanwhile.
  bool supports_audit() const;
  // Whether the plugin keeps each event's mac (ABI 1.7): an older one drops it.
  bool keeps_audit_mac() const;
  // Whether the plugin keeps each usage record's operation (ABI 1.8). An
  // older one stores every record as chat completions and ignores the
  // filter, so usage_page and usage_totals answer an operation filter for it.
  bool keeps_usage_operation() const;
  std::optional<UsageFilter> operation_filter_for_plugin(const UsageFilter& filter) const;
  bool append_audit(const std::vector<AuditRow>& events);
  std::vector<AuditRow> audit_page(const AuditFilter& filter);
  std::vector<AuditRow> audit_heads();  // the newest event of every chain

  // Restoring another database's rows with their ids (ABI 1.5, storage
  // copy). Each is idempotent; a different row in the way throws
  // StorageError(MGW_CONFLICT). supports_restore() says whether the plugin
  // can be copied into.
  bool supports_restore() const;
  void restore_tenant(const Tenant& tenant);
  void restore_api_key(const ApiKeyRow& key);
  void restore_budget(const BudgetRow& budget);
  std::vector<LedgerWindow> ledger_windows();
  void restore_ledger_window(const LedgerWindow& window);

  // Stored responses (ABI 1.9). keeps_responses() says whether the plugin's
  // table reaches on_response_page; without it each call below throws
  // StorageError(MGW_UNSUPPORTED). response_put throws StorageError with
  // MGW_CONFLICT when a different response holds (tenant_id, id); an equal
  // one is fine, so a copy can run again.
  bool keeps_responses() const;
  void response_put(const StoredResponse& response);
  // nullopt when the tenant has no such response or it expired by now_unix_ms.
  std::optional<StoredResponse> response_get(std::int64_t tenant_id, std::string_view id,
                                             std::int64_t now_unix_ms);
  bool response_delete(std::int64_t tenant_id, std::string_view id);  // false: none
  // Removes at most `limit` responses expired by now_unix_ms; how many.
  std::int64_t response_purge(std::int64_t now_unix_ms, std::int64_t limit);
  // At most `limit` (1..1000) responses after (after_tenant_id, after_id) by
  // (tenant_id, id), expired ones included: storage copy pages with it.
  std::vector<StoredResponse> response_page(std::int64_t after_tenant_id, std::string_view after_id,
                                            std::int64_t limit);

  std::string plugin_name() const { return library_->name(); }

 private:
  std::shared_ptr<PluginLibrary> library_;
  // A hook of a later minor, or StorageError(MGW_UNSUPPORTED) saying the
  // plugin is too old to `what`.
  template <typename Hook>
  Hook hook(Hook mgw_storage_hooks::*member, const char* what) const;

  mgw_storage_hooks hooks_;  // in this host's layout: a later minor's hook is NULL for an older plugin
  mgw_storage* handle_ = nullptr;
};

}  // namespace modelgw::plugins
