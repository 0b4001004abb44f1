#include "connection.h"

#include <modelgw/sdk.hpp>

#include <pqxx/pqxx>

#include "failure.h"
#include "statements.h"

namespace mgw_pg {

bool Connection::NoticeLog::operator()(const char message[]) noexcept {
  try {
    mgw::log(host_, MGW_LOG_WARN, "postgres storage: server says: " + one_line(message));
  } catch (...) {  // out of memory: the notice is lost, nothing else
  }
  return false;  // handled: not passed on to libpq's stderr printer
}

Connection::Connection(const std::string& conninfo, const SessionSettings& settings)
    : conn_(conninfo), notices_(conn_, settings.host) {
  // Deprecated in libpqxx 6 only because 7 removed reactivation altogether,
  // which is the behaviour wanted here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  conn_.inhibit_reactivation(true);
#pragma GCC diagnostic pop
  // The schema name is validated ([A-Za-z_][A-Za-z0-9_]*) and quoted, so a
  // mixed-case name is kept as written. Notices (e.g. "schema already
  // exists, skipping") are not worth a log line; warnings are. Text crosses
  // the ABI as UTF-8, so that is what the server is told to expect.
  pqxx::nontransaction tx(conn_);
  tx.exec_params(
      "SELECT set_config('search_path', $1, false), set_config('statement_timeout', $2, false), "
      "set_config('client_min_messages', 'warning', false), set_config('client_encoding', 'UTF8', false)",
      "\"" + settings.schema + "\"", std::to_string(settings.statement_timeout_ms));
}

void Connection::prepare_statements() {
  for (const auto& s : statements()) {
    conn_.prepare(s.name, s.sql);
    conn_.prepare_now(s.name);
  }
  prepared_ = true;
}

}  // namespace mgw_pg
