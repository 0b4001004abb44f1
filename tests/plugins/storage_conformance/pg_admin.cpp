#include "pg_admin.h"

#include <libpq-fe.h>

#include <memory>
#include <stdexcept>

namespace storage_test {
namespace {

std::string error_of(PGconn* conn) {
  const char* message = conn != nullptr ? PQerrorMessage(conn) : "out of memory";
  std::string text = message != nullptr ? message : "?";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

using Result = std::unique_ptr<PGresult, decltype(&PQclear)>;

// Bound every wait of the tests' own statements: a stuck lock fails the test instead of hanging it.
constexpr const char* kSessionSettings =
    "SET lock_timeout = '20s'; SET statement_timeout = '60s'; SET client_min_messages = warning";

}  // namespace

PgAdmin::PgAdmin(const std::string& dsn) : conn_(PQconnectdb(dsn.c_str())) {
  if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
    std::string message = "test's own PostgreSQL connection failed: " + error_of(conn_);
    PQfinish(conn_);
    conn_ = nullptr;
    throw std::runtime_error(message);
  }
  exec(kSessionSettings);
}

PgAdmin::~PgAdmin() {
  PQfinish(conn_);
}

PGresult* PgAdmin::run(const std::string& sql) {
  PGresult* result = PQexec(conn_, sql.c_str());
  // A server restarted under the test (fault tests) broke this connection:
  // connect again once and repeat, as psql does.
  if (PQstatus(conn_) == CONNECTION_BAD) {
    PQclear(result);
    PQreset(conn_);
    if (PQstatus(conn_) == CONNECTION_OK) {
      PQclear(PQexec(conn_, kSessionSettings));
      result = PQexec(conn_, sql.c_str());
    } else {
      result = nullptr;
    }
  }
  return result;
}

void PgAdmin::exec(const std::string& sql) {
  Result result(run(sql), &PQclear);
  const auto status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
    throw std::runtime_error(sql + ": " + error_of(conn_));
}

std::vector<std::string> PgAdmin::column(const std::string& sql) {
  Result result(run(sql), &PQclear);
  if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) throw std::runtime_error(sql + ": " + error_of(conn_));
  std::vector<std::string> values;
  for (int row = 0; row < PQntuples(result.get()); ++row)
    values.emplace_back(PQgetvalue(result.get(), row, 0));
  return values;
}

std::string PgAdmin::text(const std::string& sql) {
  auto values = column(sql);
  return values.empty() ? std::string() : values.front();
}

int64_t PgAdmin::integer(const std::string& sql) {
  return std::stoll(text(sql));
}

std::string quote_ident(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string quote_literal(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string dsn_with(const std::string& dsn, const std::string& key, const std::string& value) {
  if (dsn.rfind("postgresql://", 0) == 0 || dsn.rfind("postgres://", 0) == 0)
    return dsn + (dsn.find('?') == std::string::npos ? "?" : "&") + key + "=" + value;
  return dsn + " " + key + "=" + value;
}

}  // namespace storage_test
