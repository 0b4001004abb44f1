// A plain libpq connection for the tests' own statements beside the plugin
// (dropping a test's schema, planting a trigger, terminating backends): what
// an operator's psql would do next to the gateway.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct pg_conn;
struct pg_result;

namespace storage_test {

class PgAdmin {
 public:
  // Throws std::runtime_error naming the failure (never the DSN, which may hold a password).
  explicit PgAdmin(const std::string& dsn);
  ~PgAdmin();
  PgAdmin(const PgAdmin&) = delete;
  PgAdmin& operator=(const PgAdmin&) = delete;

  // Runs `sql` (one or more statements); throws with the server's message on failure.
  void exec(const std::string& sql);
  // Every row of the first column of the last statement's result, as text (NULL as "").
  std::vector<std::string> column(const std::string& sql);
  std::string text(const std::string& sql);
  int64_t integer(const std::string& sql);

 private:
  pg_result* run(const std::string& sql);

  pg_conn* conn_ = nullptr;
};

// `name` quoted as an SQL identifier ("a""b"), or as a string literal ('a''b').
std::string quote_ident(const std::string& name);
std::string quote_literal(const std::string& text);

// `dsn` with one more connection parameter: works for URIs (postgresql://...)
// and for key=value strings.
std::string dsn_with(const std::string& dsn, const std::string& key, const std::string& value);

}  // namespace storage_test
