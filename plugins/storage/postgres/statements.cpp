#include "statements.h"

#include <modelgw/plugin.h>

#include <array>

namespace mgw_pg {
namespace {

static_assert(MGW_IDEMPOTENCY_PENDING == 1 && MGW_IDEMPOTENCY_DONE == 2,
              "the idempotency statements below spell the states as 1 and 2");

#define MGW_TENANT_COLUMNS "SELECT id, name, created_unix_ms, settings_json FROM tenants "

// Key reads join the tenant's name in, as mgw_api_key_record carries it.
#define MGW_KEY_COLUMNS                                                                           \
  "SELECT k.id, k.tenant_id, t.name, k.key_hash, k.display_prefix, k.scopes, k.created_unix_ms, " \
  "k.revoked_unix_ms FROM api_keys AS k JOIN tenants AS t ON t.id = k.tenant_id "

// The active flag is read from prompt_active in the same statement, so a row
// never claims to be active when another version is.
#define MGW_PROMPT_SELECT                                                                        \
  "SELECT v.tenant_id, v.name, v.version, (a.version IS NOT NULL), v.template_json, v.model, "   \
  "v.parameters_json, v.created_unix_ms FROM prompt_versions AS v LEFT JOIN prompt_active AS a " \
  "ON a.tenant_id = v.tenant_id AND a.name = v.name AND a.version = v.version "

#define MGW_BUDGET_COLUMNS \
  "SELECT id, tenant_id, scope, subject, name, period, limit_micros, created_unix_ms FROM budgets "

#define MGW_AUDIT_COLUMNS                                                                                   \
  "id, tenant_id, seq, created_unix_ms, actor, action, target, request_id, details_json, prev_hash, hash, " \
  "mac"

#define MGW_RESPONSE_COLUMNS \
  "tenant_id, id, previous_id, created_unix_ms, expires_unix_ms, input_json, response_json"

constexpr std::array kStatements{
    // Tenants.
    NamedStatement{"tenant_insert",
                   "INSERT INTO tenants (name, created_unix_ms) VALUES ($1, $2) RETURNING id"},
    NamedStatement{"tenant_find", MGW_TENANT_COLUMNS "WHERE name = $1"},
    NamedStatement{"tenant_list", MGW_TENANT_COLUMNS "ORDER BY id"},
    NamedStatement{"tenant_settings_set", "UPDATE tenants SET settings_json = $2 WHERE id = $1"},
    NamedStatement{"tenant_exists", "SELECT 1 FROM tenants WHERE id = $1"},
    NamedStatement{"tenant_lock", "SELECT 1 FROM tenants WHERE id = $1 FOR NO KEY UPDATE"},

    // API keys.
    NamedStatement{"api_key_insert",
                   "INSERT INTO api_keys (tenant_id, key_hash, display_prefix, scopes, created_unix_ms, "
                   "revoked_unix_ms) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id"},
    NamedStatement{"api_key_find_by_hash", MGW_KEY_COLUMNS "WHERE k.key_hash = $1"},
    NamedStatement{"api_key_list_all", MGW_KEY_COLUMNS "ORDER BY k.created_unix_ms, k.id"},
    NamedStatement{"api_key_list_tenant",
                   MGW_KEY_COLUMNS "WHERE k.tenant_id = $1 ORDER BY k.created_unix_ms, k.id"},
    NamedStatement{"api_key_revoke",
                   "UPDATE api_keys SET revoked_unix_ms = $2 WHERE id = $1 AND revoked_unix_ms = 0"},
    NamedStatement{"api_key_exists", "SELECT 1 FROM api_keys WHERE id = $1"},

    // Usage: the record (skipped when its request_id is stored), its hour's
    // rollup, and the charges it settles.
    NamedStatement{
        "usage_insert",
        "INSERT INTO usage_records (request_id, tenant_id, key_id, alias, provider, upstream_model, "
        "prompt_tokens, completion_tokens, total_tokens, http_status, error_code, latency_us, ttft_us, "
        "streamed, created_unix_ms, prompt_name, prompt_version, pii_action, pii_findings, feature, "
        "cached_prompt_tokens, cost_micros, price_input_micros, price_output_micros, "
        "price_cached_micros, reason, trace_id, operation) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, "
        "$11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28) "
        "ON CONFLICT (request_id) DO NOTHING RETURNING id"},
    NamedStatement{
        "usage_rollup_add",
        "INSERT INTO usage_rollup_hour AS r (tenant_id, hour_start, alias, feature, key_id, "
        "http_status, streamed, requests, prompt_tokens, completion_tokens, total_tokens, cost_micros, "
        "operation) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) "
        "ON CONFLICT (tenant_id, hour_start, alias, feature, key_id, http_status, streamed, operation) "
        "DO UPDATE "
        "SET requests = r.requests + EXCLUDED.requests, prompt_tokens = r.prompt_tokens + "
        "EXCLUDED.prompt_tokens, "
        "completion_tokens = r.completion_tokens + EXCLUDED.completion_tokens, "
        "total_tokens = r.total_tokens + EXCLUDED.total_tokens, "
        "cost_micros = r.cost_micros + EXCLUDED.cost_micros"},
    // The windows of a batch's leases, so they are locked in one order.
    NamedStatement{"leases_windows",
                   "SELECT id, account, window_start FROM leases WHERE id = ANY($1::bigint[])"},
    NamedStatement{"ledger_window_ensure_for_lease",
                   "INSERT INTO ledger_windows (account, window_start, spent) "
                   "SELECT account, window_start, 0 FROM leases WHERE id = $1 "
                   "ON CONFLICT (account, window_start) DO NOTHING"},
    NamedStatement{
        "ledger_window_lock_for_lease",
        "SELECT w.spent FROM ledger_windows AS w JOIN leases AS l "
        "ON l.account = w.account AND l.window_start = w.window_start WHERE l.id = $1 FOR UPDATE OF w"},
    // The lease's settled part and its window's spent, together.
    NamedStatement{"lease_settle",
                   "WITH s AS (UPDATE leases SET settled = settled + $2 WHERE id = $1 "
                   "RETURNING account, window_start) "
                   "UPDATE ledger_windows AS w SET spent = w.spent + $2 FROM s "
                   "WHERE w.account = s.account AND w.window_start = s.window_start RETURNING w.spent"},

    // Prompts.
    NamedStatement{
        "prompt_next_version",
        "SELECT COALESCE(MAX(version), 0) + 1 FROM prompt_versions WHERE tenant_id = $1 AND name = $2"},
    NamedStatement{
        "prompt_version_insert",
        "INSERT INTO prompt_versions (tenant_id, name, version, template_json, model, parameters_json, "
        "created_unix_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)"},
    NamedStatement{"prompt_activate",
                   "INSERT INTO prompt_active (tenant_id, name, version) VALUES ($1, $2, $3) "
                   "ON CONFLICT (tenant_id, name) DO UPDATE SET version = EXCLUDED.version"},
    NamedStatement{"prompt_version_exists",
                   "SELECT 1 FROM prompt_versions WHERE tenant_id = $1 AND name = $2 AND version = $3"},
    NamedStatement{"prompt_find_active",
                   MGW_PROMPT_SELECT "WHERE v.tenant_id = $1 AND v.name = $2 AND a.version IS NOT NULL"},
    NamedStatement{"prompt_find_version",
                   MGW_PROMPT_SELECT "WHERE v.tenant_id = $1 AND v.name = $2 AND v.version = $3"},
    NamedStatement{"prompt_list_all", MGW_PROMPT_SELECT "WHERE v.tenant_id = $1 ORDER BY v.name, v.version"},
    NamedStatement{"prompt_list_name",
                   MGW_PROMPT_SELECT "WHERE v.tenant_id = $1 AND v.name = $2 ORDER BY v.version"},

    // Budgets.
    NamedStatement{
        "budget_taken",
        "SELECT 1 FROM budgets WHERE tenant_id = $1 AND scope = $2 AND subject = $3 AND period = $4"},
    NamedStatement{
        "budget_insert",
        "INSERT INTO budgets (tenant_id, scope, subject, name, period, limit_micros, created_unix_ms) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id"},
    NamedStatement{"budget_list_all", MGW_BUDGET_COLUMNS "ORDER BY id"},
    NamedStatement{"budget_list_tenant", MGW_BUDGET_COLUMNS "WHERE tenant_id = $1 ORDER BY id"},
    NamedStatement{"budget_lock", "SELECT limit_micros FROM budgets WHERE id = $1 FOR UPDATE"},
    NamedStatement{"budget_update_limit", "UPDATE budgets SET limit_micros = $2 WHERE id = $1"},
    NamedStatement{"budget_delete", "DELETE FROM budgets WHERE id = $1"},

    // Ledger windows and leases (leases.cpp says why in this order).
    NamedStatement{"ledger_window_ensure",
                   "INSERT INTO ledger_windows (account, window_start, spent) VALUES ($1, $2, 0) "
                   "ON CONFLICT (account, window_start) DO NOTHING"},
    NamedStatement{"ledger_window_lock",
                   "SELECT spent FROM ledger_windows WHERE account = $1 AND window_start = $2 FOR UPDATE"},
    NamedStatement{"lease_reserved",
                   "SELECT COALESCE(SUM(GREATEST(granted - settled, 0)), 0)::BIGINT FROM leases "
                   "WHERE account = $1 AND window_start = $2 AND expires_unix_ms > $3"},
    NamedStatement{"lease_find_live",
                   "SELECT granted FROM leases WHERE id = $1 AND account = $2 AND window_start = $3 "
                   "AND returned = 0 AND expires_unix_ms > $4 FOR UPDATE"},
    NamedStatement{"lease_grow",
                   "UPDATE leases SET granted = granted + $2, expires_unix_ms = $3 WHERE id = $1"},
    NamedStatement{
        "lease_insert",
        "INSERT INTO leases (account, window_start, granted, settled, expires_unix_ms, returned, holder) "
        "VALUES ($1, $2, $3, 0, $4, 0, $5) RETURNING id"},
    // Rows a settlement holds right now are left for the next take.
    NamedStatement{"lease_forget",
                   "DELETE FROM leases WHERE id IN (SELECT id FROM leases WHERE account = $1 "
                   "AND expires_unix_ms < $2 FOR UPDATE SKIP LOCKED)"},
    NamedStatement{
        "lease_return",
        "UPDATE leases SET granted = GREATEST(settled, LEAST(granted, $2)), returned = 1 WHERE id = $1"},
    NamedStatement{"lease_renew",
                   "UPDATE leases SET expires_unix_ms = GREATEST(expires_unix_ms, $2) "
                   "WHERE id = ANY ($1::BIGINT[]) AND expires_unix_ms > $3"},
    NamedStatement{
        "ledger_read",
        "SELECT COALESCE((SELECT spent FROM ledger_windows WHERE account = $1 AND window_start = $2), 0), "
        "(SELECT COALESCE(SUM(GREATEST(granted - settled, 0)), 0)::BIGINT FROM leases "
        "WHERE account = $1 AND window_start = $2 AND expires_unix_ms > $3)"},

    // Idempotency keys.
    NamedStatement{
        "idempotency_claim",
        "INSERT INTO idempotency_keys AS k (tenant_id, key, digest, owner, state, response, "
        "created_unix_ms, expires_unix_ms) VALUES ($1, $2, $3, $4, 1, ''::BYTEA, $5, $6) "
        "ON CONFLICT (tenant_id, key) DO UPDATE SET digest = EXCLUDED.digest, owner = EXCLUDED.owner, "
        "state = EXCLUDED.state, response = EXCLUDED.response, "
        "created_unix_ms = EXCLUDED.created_unix_ms, expires_unix_ms = EXCLUDED.expires_unix_ms "
        "WHERE k.expires_unix_ms <= $7 RETURNING 1"},
    NamedStatement{
        "idempotency_get",
        "SELECT digest, owner, state, response, created_unix_ms, expires_unix_ms FROM idempotency_keys "
        "WHERE tenant_id = $1 AND key = $2"},
    NamedStatement{"idempotency_complete",
                   "UPDATE idempotency_keys SET state = 2, response = $4, expires_unix_ms = $5 "
                   "WHERE tenant_id = $1 AND key = $2 AND owner = $3 AND state = 1"},
    NamedStatement{
        "idempotency_release",
        "DELETE FROM idempotency_keys WHERE tenant_id = $1 AND key = $2 AND owner = $3 AND state = 1"},
    NamedStatement{"idempotency_purge",
                   "DELETE FROM idempotency_keys WHERE (tenant_id, key) IN (SELECT tenant_id, key "
                   "FROM idempotency_keys WHERE expires_unix_ms <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED) "
                   "AND expires_unix_ms <= $1"},

    // Audit events.
    NamedStatement{
        "audit_insert",
        "INSERT INTO audit_events (tenant_id, seq, created_unix_ms, actor, action, target, request_id, "
        "details_json, prev_hash, hash, mac) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"},
    // The newest event of every chain: a skip scan over the distinct
    // tenant_ids of the (tenant_id, seq) index, then one index probe each.
    NamedStatement{
        "audit_heads",
        "WITH RECURSIVE t (tenant_id) AS ("
        "(SELECT tenant_id FROM audit_events ORDER BY tenant_id LIMIT 1) UNION ALL "
        "SELECT (SELECT e.tenant_id FROM audit_events AS e WHERE e.tenant_id > t.tenant_id "
        "ORDER BY e.tenant_id LIMIT 1) FROM t WHERE t.tenant_id IS NOT NULL) "
        "SELECT h.* FROM t CROSS JOIN LATERAL (SELECT " MGW_AUDIT_COLUMNS
        " FROM audit_events AS e WHERE e.tenant_id = t.tenant_id ORDER BY e.seq DESC LIMIT 1) AS h "
        "WHERE t.tenant_id IS NOT NULL ORDER BY h.tenant_id"},

    // Stored responses (responses.cpp). A put inserts or, when the key is
    // taken, compares in the database (no 16 MiB document read back).
    NamedStatement{"response_insert",
                   "INSERT INTO responses (" MGW_RESPONSE_COLUMNS ") VALUES ($1, $2, $3, $4, $5, $6, $7) "
                   "ON CONFLICT (tenant_id, id) DO NOTHING RETURNING 1"},
    NamedStatement{"response_same",
                   "SELECT previous_id = $3 AND created_unix_ms = $4 AND expires_unix_ms = $5 AND "
                   "input_json = $6 AND response_json = $7 FROM responses WHERE tenant_id = $1 AND id = $2"},
    NamedStatement{"response_get",
                   "SELECT " MGW_RESPONSE_COLUMNS
                   " FROM responses WHERE tenant_id = $1 AND id = $2 AND expires_unix_ms > $3"},
    NamedStatement{"response_delete", "DELETE FROM responses WHERE tenant_id = $1 AND id = $2"},
    // As idempotency_purge: rows another purge is deleting are skipped.
    NamedStatement{"response_purge",
                   "DELETE FROM responses WHERE (tenant_id, id) IN (SELECT tenant_id, id FROM responses "
                   "WHERE expires_unix_ms <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED) AND expires_unix_ms <= $1"},
    // The id column collates as "C", so this is the bytewise order the ABI
    // names, walked on the primary key.
    NamedStatement{"response_page",
                   "SELECT " MGW_RESPONSE_COLUMNS
                   " FROM responses WHERE (tenant_id, id) > ($1, $2) ORDER BY tenant_id, id LIMIT $3"},
};

}  // namespace

std::span<const NamedStatement> statements() noexcept {
  return kStatements;
}

}  // namespace mgw_pg
