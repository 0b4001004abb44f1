// The schema, versioned in code. Each step runs in a transaction of its own
// and records its number in PRAGMA user_version, so a database is always at
// exactly one known version, even after a crash mid-migration.
#pragma once

#include <modelgw/plugin.h>

#include <span>

#include "connection.h"

namespace mgw_sqlite {

struct Migration {
  int version;              // 1, 2, 3, ... in order; the version after this step
  const char* description;  // for the log
  const char* sql;          // a script of DDL statements, no values
};

// Every step, oldest first. Append only: a released step is never edited.
std::span<const Migration> migrations() noexcept;

// The version this plugin brings a database to.
int latest_schema_version() noexcept;

struct MigrationResult {
  int from;
  int to;
};

// Applies the missing steps on the writer connection. Throws Failure: with
// MGW_UNSUPPORTED (naming both versions) for a database newer than this plugin.
// Safe against another process migrating the same file at the same time: the
// version is read inside each step's BEGIN IMMEDIATE transaction.
// With apply false, an older database is refused (MGW_UNSUPPORTED, naming
// `modelgw migrate`) instead of migrated.
MigrationResult migrate(Connection& writer, const mgw_host_api* host, bool apply = true);

}  // namespace mgw_sqlite
