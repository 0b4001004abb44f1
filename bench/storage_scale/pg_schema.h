// The fresh PostgreSQL schema a run works in: named after the process and
// the time, created at the start (which also checks the DSN before anything
// else runs) and dropped with everything in it when the run ends.
#pragma once

#include <string>

namespace storage_scale {

class PgSchema {
 public:
  // Connects with `dsn` and creates the schema; throws with libpq's reason.
  explicit PgSchema(std::string dsn);
  // Drops the schema (CASCADE); a failure is printed with the schema's name
  // so it can be dropped by hand.
  ~PgSchema();
  PgSchema(const PgSchema&) = delete;
  PgSchema& operator=(const PgSchema&) = delete;

  const std::string& name() const { return name_; }
  const std::string& server_version() const { return server_version_; }  // "15.8"

 private:
  std::string dsn_;
  std::string name_;
  std::string server_version_;
};

}  // namespace storage_scale
