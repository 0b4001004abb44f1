// One PostgreSQL connection with this plugin's session settings and, once the
// schema is in place, every statement of statements.cpp prepared on it.
//
// A Connection is used by one thread at a time (the Pool lends it out), so it
// needs no lock. libpqxx 6 would silently reconnect a connection it found
// closed, losing the session settings; that is switched off: a broken
// connection is dropped by the pool and replaced by a new one.
#pragma once

#include <modelgw/plugin.h>

#include <pqxx/pqxx>

#include <string>

namespace mgw_pg {

struct SessionSettings {
  std::string schema;            // the only schema on search_path
  int statement_timeout_ms = 0;  // 0: none
  const mgw_host_api* host = nullptr;
};

class Connection {
 public:
  // Connects (libpq's connect_timeout bounds the wait) and applies `settings`.
  // Throws pqxx::broken_connection when the server cannot be reached.
  Connection(const std::string& conninfo, const SessionSettings& settings);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  pqxx::connection& raw() noexcept { return conn_; }
  bool is_open() const noexcept { return conn_.is_open(); }

  // Prepares every statement of statements.cpp on the server now, so a
  // statement that no longer matches the schema fails at once, not later.
  void prepare_statements();
  bool prepared() const noexcept { return prepared_; }

 private:
  // The server's warnings go to the host's log instead of libpq's default,
  // stderr. Declared after conn_, so it is unregistered before conn_ closes.
  class NoticeLog : public pqxx::errorhandler {
   public:
    NoticeLog(pqxx::connection_base& conn, const mgw_host_api* host)
        : pqxx::errorhandler(conn), host_(host) {}
    bool operator()(const char message[]) noexcept override;

   private:
    const mgw_host_api* host_;
  };

  pqxx::connection conn_;
  NoticeLog notices_;
  bool prepared_ = false;
};

}  // namespace mgw_pg
