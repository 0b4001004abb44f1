#include "database.h"

#include <modelgw/sdk.hpp>

#include <chrono>
#include <thread>

#include "dsn.h"
#include "migrations.h"

namespace mgw_pg {
namespace {

PoolSettings pool_settings(const mgw_host_api* host, const Config& config) {
  auto target = connect_target(config);
  PoolSettings settings;
  settings.conninfo = std::move(target.conninfo);
  settings.password = std::move(target.password);
  settings.description = std::move(target.description);
  settings.session.schema = config.schema;
  settings.session.statement_timeout_ms = config.statement_timeout_ms;
  settings.session.host = host;
  settings.size = static_cast<std::size_t>(config.pool_size);
  settings.acquire_timeout_ms = config.acquire_timeout_ms;
  return settings;
}

}  // namespace

Database::Database(const mgw_host_api* host, const Config& config)
    : host_(host), pool_(pool_settings(host, config)) {
  // The first connection proves the server is there, and migrates (or
  // checks) the schema; it stays in the pool for the first hook.
  try {
    auto result = run([&](Connection& c) { return migrate(c.raw(), host_, config.schema, config.migrate); });
    schema_version_ = result.to;
    statements_ready_ = true;
    // Prepares the statements on that connection now, so a schema that does
    // not match them fails the open rather than the first request.
    run([](Connection&) { return 0; });
  } catch (const Failure& failure) {
    // The server's own words (e.g. "permission denied for database x") say
    // nothing of who said them.
    std::string_view text = failure.what();
    if (text.starts_with("postgres storage: ")) throw;
    throw Failure(failure.status(), "postgres storage: schema " + config.schema + ": " + std::string(text));
  }
  mgw::log(host_, MGW_LOG_INFO,
           "postgres storage: opened " + pool_.settings().description + " schema " + config.schema +
               " at schema version " + std::to_string(schema_version_) + " (pool_size " +
               std::to_string(config.pool_size) + ")");
}

void Database::conflict(Attempts& attempts, const char* what) {
  if (++attempts.conflicts >= kMaxAttempts) {
    throw Failure(MGW_UNAVAILABLE, "postgres storage: gave up after " + std::to_string(kMaxAttempts) +
                                       " attempts: " + primary_message(what));
  }
  // Retried, but said: a deadlock costs the server's deadlock_timeout (1 s
  // by default) each time, so an operator should see them.
  mgw::log(host_, MGW_LOG_INFO,
           "postgres storage: a transaction collided with another (" + primary_message(what) +
               "); running it again (attempt " + std::to_string(attempts.conflicts + 1) + ")");
  // A short, growing pause, so the transactions that collided do not meet again at once.
  std::this_thread::sleep_for(std::chrono::milliseconds(2 * attempts.conflicts));
}

void Database::lost(Attempts& attempts, const char* what) {
  const auto& settings = pool_.settings();
  const std::string why = mask_secrets(one_line(what), settings.password);
  // Every idle connection most likely broke with this one.
  pool_.drop_idle();
  if (!attempts.reconnected) {
    attempts.reconnected = true;
    mgw::log(host_, MGW_LOG_WARN,
             "postgres storage: lost a database connection (" + why + "); retrying on a new one");
    return;
  }
  throw Failure(MGW_UNAVAILABLE,
                "postgres storage: cannot reach the database (" + settings.description + "): " + why);
}

Failure Database::sql_failure(const std::string& sqlstate, const char* what) {
  const mgw_status status = status_from_sqlstate(sqlstate);
  std::string text = primary_message(what);
  if (status == MGW_UNAVAILABLE) text = "postgres storage: " + text;
  return Failure(status, text);
}

void Database::unknown_outcome(const char* what) {
  pool_.drop_idle();
  throw Failure(MGW_UNAVAILABLE,
                "postgres storage: the database connection was lost while committing, so the outcome is "
                "unknown: " +
                    mask_secrets(one_line(what), pool_.settings().password));
}

}  // namespace mgw_pg
