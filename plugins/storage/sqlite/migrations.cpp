#include "migrations.h"

#include <modelgw/sdk.hpp>

#include <array>
#include <cstdint>
#include <string>

#include "failure.h"
#include "transaction.h"

namespace mgw_sqlite {
namespace {

// Version 1: tenants, their API keys (SHA-256 hashes only, never the key) and
// one row per served request.
//
// usage_records has no foreign keys on purpose: a request rejected before it
// was authenticated is still recorded (tenant_id and key_id 0), and usage
// history must outlive anything it mentions.
constexpr const char* kInitialSchema = R"sql(
CREATE TABLE tenants (
  id              INTEGER PRIMARY KEY,
  name            TEXT    UNIQUE NOT NULL,
  created_unix_ms INTEGER NOT NULL
);

CREATE TABLE api_keys (
  id              INTEGER PRIMARY KEY,
  tenant_id       INTEGER NOT NULL REFERENCES tenants(id),
  key_hash        TEXT    UNIQUE NOT NULL,
  display_prefix  TEXT    NOT NULL,
  scopes          TEXT    NOT NULL,
  created_unix_ms INTEGER NOT NULL,
  revoked_unix_ms INTEGER NOT NULL DEFAULT 0
);
-- Listing one tenant's keys; also what SQLite needs to check the foreign key.
CREATE INDEX api_keys_tenant ON api_keys (tenant_id);

CREATE TABLE usage_records (
  id                INTEGER PRIMARY KEY,
  request_id        TEXT    NOT NULL,
  tenant_id         INTEGER NOT NULL,
  key_id            INTEGER NOT NULL,
  alias             TEXT    NOT NULL,
  provider          TEXT    NOT NULL,
  upstream_model    TEXT    NOT NULL,
  prompt_tokens     INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  total_tokens      INTEGER NOT NULL,
  http_status       INTEGER NOT NULL,
  error_code        TEXT    NOT NULL,
  latency_us        INTEGER NOT NULL,
  ttft_us           INTEGER NOT NULL,
  streamed          INTEGER NOT NULL,
  created_unix_ms   INTEGER NOT NULL
);
CREATE INDEX usage_records_request_id ON usage_records (request_id);
CREATE INDEX usage_records_tenant_created ON usage_records (tenant_id, created_unix_ms);
-- Newest-first queries across all tenants.
CREATE INDEX usage_records_created ON usage_records (created_unix_ms);
)sql";

// Version 2: per-tenant settings, named prompts, and which prompt a request
// invoked. A prompt's versions are immutable rows; which one is active lives in
// a table of its own, keyed by the prompt, so "exactly one active version" is
// the primary key's promise rather than a flag every writer must keep right.
constexpr const char* kTenantSettingsAndPrompts = R"sql(
ALTER TABLE tenants ADD COLUMN settings_json TEXT NOT NULL DEFAULT '{}';

CREATE TABLE prompt_versions (
  tenant_id       INTEGER NOT NULL REFERENCES tenants(id),
  name            TEXT    NOT NULL,
  version         INTEGER NOT NULL,
  template_json   TEXT    NOT NULL,
  model           TEXT    NOT NULL,
  parameters_json TEXT    NOT NULL,
  created_unix_ms INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, name, version)
);

CREATE TABLE prompt_active (
  tenant_id INTEGER NOT NULL,
  name      TEXT    NOT NULL,
  version   INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, name),
  FOREIGN KEY (tenant_id, name, version) REFERENCES prompt_versions (tenant_id, name, version)
);

ALTER TABLE usage_records ADD COLUMN prompt_name TEXT NOT NULL DEFAULT '';
ALTER TABLE usage_records ADD COLUMN prompt_version INTEGER NOT NULL DEFAULT 0;
)sql";

// Version 3: what the PII step did to each request (categories and counts only).
constexpr const char* kUsagePii = R"sql(
ALTER TABLE usage_records ADD COLUMN pii_action TEXT NOT NULL DEFAULT '';
ALTER TABLE usage_records ADD COLUMN pii_findings TEXT NOT NULL DEFAULT '';
)sql";

// Version 4: money. Usage records carry their feature, cost and prices;
// hourly rollups keep usage totals cheap to read; budgets (and each tenant's
// credit account) with, per ledger account and window, what was spent and the
// leases processes hold on what is left (see plugin.h, on_lease_take).
constexpr const char* kMoney = R"sql(
ALTER TABLE usage_records ADD COLUMN feature TEXT NOT NULL DEFAULT '';
ALTER TABLE usage_records ADD COLUMN cached_prompt_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_records ADD COLUMN cost_micros INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_records ADD COLUMN price_input_micros INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_records ADD COLUMN price_output_micros INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_records ADD COLUMN price_cached_micros INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_records ADD COLUMN reason TEXT NOT NULL DEFAULT '';
-- GET /v1/usage pages one tenant's records by id (insertion order), newest first.
CREATE INDEX usage_records_tenant_id ON usage_records (tenant_id, id);

-- One row per (tenant, hour, and every filterable column): totals over any
-- filter read these instead of the records.
CREATE TABLE usage_rollup_hour (
  tenant_id         INTEGER NOT NULL,
  hour_start        INTEGER NOT NULL,
  alias             TEXT    NOT NULL,
  feature           TEXT    NOT NULL,
  key_id            INTEGER NOT NULL,
  http_status       INTEGER NOT NULL,
  streamed          INTEGER NOT NULL,
  requests          INTEGER NOT NULL,
  prompt_tokens     INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  total_tokens      INTEGER NOT NULL,
  cost_micros       INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, hour_start, alias, feature, key_id, http_status, streamed)
) WITHOUT ROWID;
INSERT INTO usage_rollup_hour
  SELECT tenant_id, created_unix_ms - (created_unix_ms % 3600000), alias, feature, key_id, http_status, streamed,
         COUNT(*), SUM(prompt_tokens), SUM(completion_tokens), SUM(total_tokens), SUM(cost_micros)
  FROM usage_records GROUP BY 1, 2, 3, 4, 5, 6, 7;

CREATE TABLE budgets (
  id              INTEGER PRIMARY KEY,
  tenant_id       INTEGER NOT NULL REFERENCES tenants(id),
  scope           TEXT    NOT NULL,
  subject         TEXT    NOT NULL,
  name            TEXT    NOT NULL,
  period          TEXT    NOT NULL,
  limit_micros    INTEGER NOT NULL,
  created_unix_ms INTEGER NOT NULL,
  UNIQUE (tenant_id, scope, subject, period)
);

CREATE TABLE ledger_windows (
  account      TEXT    NOT NULL,
  window_start INTEGER NOT NULL,
  spent        INTEGER NOT NULL,
  PRIMARY KEY (account, window_start)
) WITHOUT ROWID;

CREATE TABLE leases (
  id              INTEGER PRIMARY KEY,
  account         TEXT    NOT NULL,
  window_start    INTEGER NOT NULL,
  granted         INTEGER NOT NULL,
  settled         INTEGER NOT NULL,
  expires_unix_ms INTEGER NOT NULL,
  returned        INTEGER NOT NULL,
  holder          TEXT    NOT NULL
);
CREATE INDEX leases_account ON leases (account, window_start, expires_unix_ms);
)sql";

// Idempotency keys (ABI 1.3): one row per (tenant, key), claimed then
// completed or released; expired rows are purged by expires_unix_ms.
constexpr const char* kIdempotency = R"sql(
CREATE TABLE idempotency_keys (
  tenant_id       INTEGER NOT NULL,
  key             TEXT    NOT NULL,
  digest          TEXT    NOT NULL,
  owner           TEXT    NOT NULL,
  state           INTEGER NOT NULL,
  response        BLOB    NOT NULL,
  created_unix_ms INTEGER NOT NULL,
  expires_unix_ms INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_unix_ms);
)sql";

// The audit log (ABI 1.3): append-only chains, one per tenant, numbered by
// seq; (tenant_id, seq) is unique, so two processes cannot both append the
// same link.
constexpr const char* kAudit = R"sql(
CREATE TABLE audit_events (
  id              INTEGER PRIMARY KEY,
  tenant_id       INTEGER NOT NULL,
  seq             INTEGER NOT NULL,
  created_unix_ms INTEGER NOT NULL,
  actor           TEXT    NOT NULL,
  action          TEXT    NOT NULL,
  target          TEXT    NOT NULL,
  request_id      TEXT    NOT NULL,
  details_json    TEXT    NOT NULL,
  prev_hash       TEXT    NOT NULL,
  hash            TEXT    NOT NULL,
  UNIQUE (tenant_id, seq)
);
)sql";

// Version 7 (ABI 1.6): the W3C trace id each request was served under; empty
// for records stored before.
constexpr const char* kUsageTraceId = R"sql(
ALTER TABLE usage_records ADD COLUMN trace_id TEXT NOT NULL DEFAULT '';
)sql";

// Version 8 (ABI 1.7): each audit event's MAC under the operator's audit
// key; empty for events stored before, or written without a key.
constexpr const char* kAuditMac = R"sql(
ALTER TABLE audit_events ADD COLUMN mac TEXT NOT NULL DEFAULT '';
)sql";

// Version 9: a page of GET /v1/usage filtered by model, feature or key walks
// only the records it matches, newest first (every SQLite index ends in the
// rowid, so these are ordered by id within a value), instead of every record
// of the tenant.
constexpr const char* kUsageFilterIndexes = R"sql(
CREATE INDEX usage_records_tenant_alias ON usage_records (tenant_id, alias);
CREATE INDEX usage_records_tenant_feature ON usage_records (tenant_id, feature);
CREATE INDEX usage_records_tenant_key ON usage_records (tenant_id, key_id);
)sql";

// Version 10 (ABI 1.8): the API each request came through. Records stored
// before came through chat completions, the only one there was. The hourly
// rollups gain it as part of their key, so totals filtered by operation still
// read the rollups; SQLite cannot change a primary key in place, so the table
// is rebuilt with its rows, all of them chat completions.
constexpr const char* kUsageOperation = R"sql(
ALTER TABLE usage_records ADD COLUMN operation TEXT NOT NULL DEFAULT 'chat.completions';

CREATE TABLE usage_rollup_hour_v10 (
  tenant_id         INTEGER NOT NULL,
  hour_start        INTEGER NOT NULL,
  alias             TEXT    NOT NULL,
  feature           TEXT    NOT NULL,
  key_id            INTEGER NOT NULL,
  http_status       INTEGER NOT NULL,
  streamed          INTEGER NOT NULL,
  operation         TEXT    NOT NULL,
  requests          INTEGER NOT NULL,
  prompt_tokens     INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  total_tokens      INTEGER NOT NULL,
  cost_micros       INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, hour_start, alias, feature, key_id, http_status, streamed, operation)
) WITHOUT ROWID;
INSERT INTO usage_rollup_hour_v10
  SELECT tenant_id, hour_start, alias, feature, key_id, http_status, streamed, 'chat.completions',
         requests, prompt_tokens, completion_tokens, total_tokens, cost_micros
  FROM usage_rollup_hour;
DROP TABLE usage_rollup_hour;
ALTER TABLE usage_rollup_hour_v10 RENAME TO usage_rollup_hour;
)sql";

// Version 11 (ABI 1.9): stored responses of the Responses API, one per
// (tenant_id, id) as the API names them; the JSON kept as given. Expiry is
// indexed for the purge. (Version 10 belongs to ABI 1.8.)
constexpr const char* kResponses = R"sql(
CREATE TABLE responses (
  tenant_id       INTEGER NOT NULL,
  id              TEXT    NOT NULL,
  previous_id     TEXT    NOT NULL,
  created_unix_ms INTEGER NOT NULL,
  expires_unix_ms INTEGER NOT NULL,
  input_json      TEXT    NOT NULL,
  response_json   TEXT    NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX responses_expiry ON responses (expires_unix_ms);
)sql";

// Version 12: no index on created_unix_ms alone. Every record paid a
// B-tree insert into it (one of eight per record, the usage writer's largest
// cost); what reads records by time names a tenant and uses
// (tenant_id, created_unix_ms). Only the ABI's whole-store query across all
// tenants (on_usage_query without a tenant, which the gateway never makes)
// now walks the table for its newest records.
constexpr const char* kNoUsageTimeIndex = R"sql(
DROP INDEX IF EXISTS usage_records_created;
)sql";

// Version 13: no index per filter column nor on time on the usage records.
// Every record paid a B-tree insert into (tenant_id, alias), (tenant_id,
// feature), (tenant_id, key_id) and (tenant_id, created_unix_ms), about a
// third of the usage writer's work. Instead, per batch (one transaction),
// one posting per tenant, filter column and value holds the batch's id range
// of those records: a page filtered by model, feature or key walks its
// postings newest first and reads only those ranges, so a rare filter reads
// a few batches, not the tenant's history. Each hourly rollup row keeps its
// records' id range too, through which totals read the records of a range's
// partial edge hours. The existing records get postings per hour. (The ABI
// 1.0 query by time, on_usage_query, which the gateway never makes, now
// sorts the tenant's records.)
constexpr const char* kUsagePostings = R"sql(
ALTER TABLE usage_rollup_hour ADD COLUMN min_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_rollup_hour ADD COLUMN max_id INTEGER NOT NULL DEFAULT 0;
-- One pass over the records, grouped as the rollups are; each group finds
-- its rollup row by the rollups' primary key.
UPDATE usage_rollup_hour AS g SET min_id = r.min_id, max_id = r.max_id
FROM (SELECT tenant_id, created_unix_ms - (created_unix_ms % 3600000) AS hour_start, alias, feature, key_id,
             http_status, streamed != 0 AS streamed, operation, min(id) AS min_id, max(id) AS max_id
      FROM usage_records GROUP BY 1, 2, 3, 4, 5, 6, 7, 8) AS r
WHERE g.tenant_id = r.tenant_id AND g.hour_start = r.hour_start AND g.alias = r.alias AND g.feature = r.feature
  AND g.key_id = r.key_id AND g.http_status = r.http_status AND g.streamed = r.streamed
  AND g.operation = r.operation;
CREATE TABLE usage_postings (
  tenant_id INTEGER NOT NULL,
  kind      INTEGER NOT NULL,  -- 1 model (alias), 2 feature, 3 key id (usage_rows.h)
  value     TEXT    NOT NULL,
  min_id    INTEGER NOT NULL,
  max_id    INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, kind, value, max_id)
) WITHOUT ROWID;
INSERT INTO usage_postings
  SELECT tenant_id, 1, alias, min(id), max(id) FROM usage_records
  GROUP BY tenant_id, alias, created_unix_ms - (created_unix_ms % 3600000);
INSERT INTO usage_postings
  SELECT tenant_id, 2, feature, min(id), max(id) FROM usage_records
  GROUP BY tenant_id, feature, created_unix_ms - (created_unix_ms % 3600000);
INSERT INTO usage_postings
  SELECT tenant_id, 3, CAST(key_id AS TEXT), min(id), max(id) FROM usage_records
  GROUP BY tenant_id, key_id, created_unix_ms - (created_unix_ms % 3600000);
DROP INDEX IF EXISTS usage_records_tenant_alias;
DROP INDEX IF EXISTS usage_records_tenant_feature;
DROP INDEX IF EXISTS usage_records_tenant_key;
DROP INDEX IF EXISTS usage_records_tenant_created;
)sql";

constexpr std::array kMigrations{
    Migration{1, "initial schema", kInitialSchema},
    Migration{2, "tenant settings and named prompts", kTenantSettingsAndPrompts},
    Migration{3, "PII action and findings on usage records", kUsagePii},
    Migration{4, "costs, usage rollups, budgets and ledger leases", kMoney},
    Migration{5, "idempotency keys", kIdempotency},
    Migration{6, "audit log", kAudit},
    Migration{7, "trace id on usage records", kUsageTraceId},
    Migration{8, "MAC on audit events", kAuditMac},
    Migration{9, "usage indexes for filters by model, feature and key", kUsageFilterIndexes},
    Migration{10, "operation on usage records and their hourly rollups", kUsageOperation},
    Migration{11, "stored responses", kResponses},
    Migration{12, "no usage index on time alone", kNoUsageTimeIndex},
    Migration{13, "usage postings and rollup id ranges instead of record indexes", kUsagePostings},
};

// The steps must be numbered 1..N without gaps: migrate() indexes by version.
constexpr bool numbered_in_order() {
  for (std::size_t i = 0; i < kMigrations.size(); ++i) {
    if (kMigrations[i].version != static_cast<int>(i) + 1) return false;
  }
  return true;
}
static_assert(numbered_in_order(), "migrations must be numbered 1, 2, 3, ... in order");

}  // namespace

std::span<const Migration> migrations() noexcept {
  return kMigrations;
}

int latest_schema_version() noexcept {
  return static_cast<int>(kMigrations.size());
}

MigrationResult migrate(Connection& writer, const mgw_host_api* host, bool apply) {
  const int latest = latest_schema_version();
  MigrationResult result{-1, -1};
  for (;;) {
    WriteTransaction transaction(writer);
    const std::int64_t current = writer.query_int64("PRAGMA user_version");
    if (result.from < 0) result.from = static_cast<int>(current);
    if (current > latest) {
      throw Failure(MGW_UNSUPPORTED, "database schema version " + std::to_string(current) +
                                         " is newer than this plugin supports (" + std::to_string(latest) +
                                         "); use a newer sqlite storage plugin");
    }
    if (current < 0)
      throw Failure(MGW_INTERNAL, "database has invalid schema version " + std::to_string(current));
    if (current == latest) {
      transaction.commit();
      result.to = latest;
      return result;
    }
    if (!apply) {
      throw Failure(MGW_UNSUPPORTED, "database schema version " + std::to_string(current) +
                                         " is older than this plugin's (" + std::to_string(latest) +
                                         ") and storage.options.migrate is false; run `modelgw migrate "
                                         "--config FILE` first");
    }
    const Migration& step = kMigrations[static_cast<std::size_t>(current)];
    writer.exec(step.sql);
    // PRAGMA takes no bound parameters; the number is this plugin's own constant.
    writer.exec("PRAGMA user_version = " + std::to_string(step.version));
    transaction.commit();
    mgw::log(host, MGW_LOG_INFO,
             "sqlite storage: applied schema migration " + std::to_string(step.version) + " (" +
                 step.description + ")");
  }
}

}  // namespace mgw_sqlite
