#include "pg_schema.h"

#include <libpq-fe.h>

#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>

namespace storage_scale {
namespace {

using Connection = std::unique_ptr<PGconn, decltype(&PQfinish)>;

Connection connect(const std::string& dsn) {
  Connection c(PQconnectdb(dsn.c_str()), &PQfinish);
  if (c == nullptr || PQstatus(c.get()) != CONNECTION_OK) {
    // libpq's message names the host and the reason, not the password.
    throw std::runtime_error(std::string("cannot connect to PostgreSQL: ") +
                             (c ? PQerrorMessage(c.get()) : "out of memory"));
  }
  // DROP ... CASCADE's NOTICE lists every table: not for the bench's output.
  PQsetNoticeProcessor(
      c.get(), [](void*, const char*) {}, nullptr);
  return c;
}

// Runs one statement; the error text, or "" when it succeeded.
std::string exec(PGconn* c, const std::string& sql) {
  std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(c, sql.c_str()), &PQclear);
  const auto status = PQresultStatus(r.get());
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return {};
  return PQerrorMessage(c);
}

}  // namespace

PgSchema::PgSchema(std::string dsn) : dsn_(std::move(dsn)) {
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  name_ = "mgw_bench_" + std::to_string(::getpid()) + "_" + std::to_string(seconds);
  auto c = connect(dsn_);
  const int v = PQserverVersion(c.get());  // 150008 for 15.8
  server_version_ = std::to_string(v / 10000) + "." + std::to_string(v % 100);
  if (auto e = exec(c.get(), "CREATE SCHEMA " + name_); !e.empty()) {
    throw std::runtime_error("cannot create schema " + name_ + ": " + e);
  }
}

PgSchema::~PgSchema() {
  try {
    auto c = connect(dsn_);
    if (auto e = exec(c.get(), "DROP SCHEMA IF EXISTS " + name_ + " CASCADE"); !e.empty()) {
      std::fprintf(stderr, "storage_scale_bench: could not drop schema %s: %s", name_.c_str(), e.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "storage_scale_bench: could not drop schema %s: %s", name_.c_str(), e.what());
  }
}

}  // namespace storage_scale
