// A test's PostgreSQL database: a schema of its own (unique per test and
// process) in one cluster's database, dropped with everything in it at the end.
#pragma once

#include <string>

#include "backend.h"
#include "pg_admin.h"

namespace storage_test {

class PostgresDatabase : public TestDatabase {
 public:
  // In the test cluster ($MGW_TEST_PG_DIR), or in the cluster at `dsn`.
  explicit PostgresDatabase(const std::string& test_name);
  PostgresDatabase(const std::string& test_name, const std::string& dsn);
  ~PostgresDatabase() override;

  // Every handle's connections carry the schema's name as application_name,
  // so a test can find (and terminate) exactly its own backends.
  std::string config(const std::string& extra = {}) const override;
  void refuse_usage_insert(const std::string& request_id, const std::string& message) override;

  // Runs the PL/pgSQL `body` before the insert of the usage record
  // `request_id` (it must end with RETURN NEW, or raise). Returns the trigger's name.
  std::string on_usage_insert_of(const std::string& request_id, const std::string& body);
  void drop_trigger(const std::string& name);

  const std::string& dsn() const { return dsn_; }
  const std::string& schema() const { return schema_; }
  // The tests' own connection (application_name "mgw_test_admin").
  PgAdmin& admin() { return admin_; }

  // Connections the plugin's handles have open on this schema.
  int64_t plugin_backends();
  // Terminates them all (pg_terminate_backend), waiting until they are gone.
  void terminate_plugin_backends();

 private:
  std::string dsn_;
  std::string schema_;
  PgAdmin admin_;
  int triggers_ = 0;
};

}  // namespace storage_test
