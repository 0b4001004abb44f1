// The schema, versioned in code. Each step runs in a transaction of its own
// that holds a transaction-level advisory lock (kMigrationLockKey) and
// records its number in schema_migrations, so several gateways starting at
// once apply each step exactly once, and a database is always at exactly one
// known version, even after a crash mid-migration.
#pragma once

#include <modelgw/plugin.h>

#include <pqxx/pqxx>

#include <cstdint>
#include <span>
#include <string>

namespace mgw_pg {

struct Migration {
  int version;              // 1, 2, 3, ... in order; the version after this step
  const char* description;  // for the log and schema_migrations
  const char* sql;          // a script of DDL statements, no values
};

// Every step, oldest first. Append only: a released step is never edited.
std::span<const Migration> migrations() noexcept;

// The version this plugin brings a database to.
int latest_schema_version() noexcept;

// The advisory lock every migrating process takes ("mgw_pg_m" in ASCII).
inline constexpr std::int64_t kMigrationLockKey = 0x6d67775f70675f6d;

struct MigrationResult {
  int from = 0;
  int to = 0;
};

// Creates `schema` when missing and applies the missing steps on `conn`
// (whose search_path is `schema`). With apply false, nothing is created and an
// older (or empty) database is refused with MGW_UNSUPPORTED naming
// `modelgw migrate`. A database newer than this plugin is MGW_UNSUPPORTED
// either way. Throws Failure, or pqxx's exceptions for the caller to map.
MigrationResult migrate(pqxx::connection& conn, const mgw_host_api* host, const std::string& schema,
                        bool apply);

}  // namespace mgw_pg
