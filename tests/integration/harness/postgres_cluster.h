// A throw-away PostgreSQL cluster of one test suite (tests/postgres/pg_cluster:
// initdb in a temp dir, pg_ctl on a free 127.0.0.1 port), stopped and removed
// on destruction. halt() and restart() stop and start the same server for the
// fault tests.
#pragma once

#include <string>

namespace it {

class PostgresCluster {
 public:
  PostgresCluster();  // throws with the script's output when the server cannot start
  ~PostgresCluster();
  PostgresCluster(const PostgresCluster&) = delete;
  PostgresCluster& operator=(const PostgresCluster&) = delete;

  const std::string& dsn() const { return dsn_; }
  // A `storage:` section for the postgres plugin on this cluster, in its own schema.
  std::string storage_yaml(const std::string& schema, int pool_size = 4) const;

  void halt();     // fast shutdown; connections are cut
  void restart();  // start again on the same port
  // Runs one SQL statement with psql and returns its unaligned output.
  std::string sql(const std::string& statement) const;

 private:
  std::string dir_;
  std::string dsn_;
};

}  // namespace it
