// A PostgreSQL cluster of one test's (or suite's) own, from
// tests/postgres/pg_cluster, stopped and removed at the end of its scope:
// for what the shared fixture cluster must not see (halting the server, TLS).
#pragma once

#include <filesystem>
#include <string>

namespace storage_test {

class ThrowAwayCluster {
 public:
  // `environment`: assignments pg_cluster runs with, e.g. "MGW_PG_TLS_DIR='/x'"
  // (already quoted for the shell). Throws with pg_cluster's output when the
  // server cannot start, having stopped whatever did.
  explicit ThrowAwayCluster(std::string environment = {});
  ~ThrowAwayCluster();
  ThrowAwayCluster(const ThrowAwayCluster&) = delete;
  ThrowAwayCluster& operator=(const ThrowAwayCluster&) = delete;

  // postgresql://modelgw@127.0.0.1:PORT/modelgw
  const std::string& dsn() const { return dsn_; }
  const std::string& port() const { return port_; }
  void halt() { run("halt"); }
  void restart() { run("restart"); }

 private:
  void run(const std::string& command);

  std::string environment_;
  std::filesystem::path parent_, dir_, log_;
  std::string dsn_, port_;
};

// `text` single-quoted for the shell.
std::string shell_quote(const std::string& text);

}  // namespace storage_test
