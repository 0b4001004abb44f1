// The open database: a connection pool and the transaction discipline every
// hook goes through.
//
// write(): one READ COMMITTED transaction per hook, committed when the body
// returns and rolled back when it throws. Statements that must not race lock
// their rows (see leases.cpp, idempotency.cpp), so this level is enough; the
// whole transaction is run again, up to kMaxAttempts times, when the server
// aborts it for a serialization failure (40001) or a deadlock (40P01).
//
// A connection that breaks is dropped with every idle one (the server most
// likely restarted); the body runs once more on a new connection, which is
// safe because the server rolls back what an unfinished transaction did. If
// that fails too, the hook gets MGW_UNAVAILABLE. A connection lost during
// COMMIT is MGW_UNAVAILABLE at once: whether the write happened is unknown.
//
// Bodies may run more than once, so they only talk to the database; rows go
// to the host after the transaction, from the pqxx::result a body returns
// (results stay valid without their connection).
#pragma once

#include <modelgw/plugin.h>

#include <pqxx/pqxx>

#include <exception>
#include <string>
#include <utility>

#include "config.h"
#include "failure.h"
#include "pool.h"

namespace mgw_pg {

class Database {
 public:
  // Connects once (so a wrong DSN fails here), creates the schema when
  // missing, migrates it (or checks it, when config.migrate is false) and
  // prepares the statements. Throws Failure.
  Database(const mgw_host_api* host, const Config& config);
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  static constexpr int kMaxAttempts = 5;

  // Runs body(pqxx::work&) in a write transaction (see above).
  template <typename Body>
  auto write(Body&& body) {
    return run([&](Connection& c) {
      pqxx::work tx(c.raw());
      auto result = body(tx);
      tx.commit();
      return result;
    });
  }

  // Runs body(pqxx::transaction_base&) outside a transaction: each statement
  // sees what was committed when it started. For single-statement reads.
  template <typename Body>
  auto read(Body&& body) {
    return run([&](Connection& c) {
      pqxx::nontransaction tx(c.raw());
      return body(tx);
    });
  }

  // Runs body(pqxx::transaction_base&) in a read-only REPEATABLE READ
  // transaction: every statement sees the same snapshot.
  template <typename Body>
  auto read_snapshot(Body&& body) {
    return run([&](Connection& c) {
      pqxx::transaction<pqxx::repeatable_read, pqxx::read_only> tx(c.raw());
      auto result = body(tx);
      tx.commit();
      return result;
    });
  }

  const mgw_host_api* host() const noexcept { return host_; }
  int schema_version() const noexcept { return schema_version_; }

 private:
  // What the last attempt's failure means for the next.
  struct Attempts {
    int conflicts = 0;         // serialization failures and deadlocks so far
    bool reconnected = false;  // the one retry on a new connection is spent
  };

  // Runs attempt(Connection&) on a pooled connection until it returns, or
  // throws a Failure for what the failure means (see the top of this file).
  template <typename Attempt>
  auto run(Attempt&& attempt) {
    Attempts attempts;
    for (;;) {
      auto lease = pool_.acquire();
      try {
        if (statements_ready_ && !lease.connection().prepared()) lease.connection().prepare_statements();
        return attempt(lease.connection());
      } catch (const Failure&) {
        throw;
      } catch (const pqxx::in_doubt_error& e) {
        lease.discard();
        unknown_outcome(e.what());
      } catch (const pqxx::statement_completion_unknown& e) {
        lease.discard();
        unknown_outcome(e.what());
      } catch (const pqxx::serialization_failure& e) {
        conflict(attempts, e.what());
      } catch (const pqxx::deadlock_detected& e) {
        conflict(attempts, e.what());
      } catch (const pqxx::broken_connection& e) {
        lease.discard();
        lost(attempts, e.what());
      } catch (const pqxx::sql_error& e) {
        if (connection_lost(e.sqlstate()) || !lease.connection().is_open()) {
          lease.discard();
          lost(attempts, e.what());
        } else if (e.sqlstate() == "40001" || e.sqlstate() == "40P01") {
          conflict(attempts, e.what());
        } else {
          throw sql_failure(e.sqlstate(), e.what());
        }
      } catch (const pqxx::transaction_rollback& e) {
        throw Failure(MGW_UNAVAILABLE, "postgres storage: the server rolled the transaction back: " +
                                           primary_message(e.what()));
      }
    }
  }

  // Each returns when the transaction should run again, else throws.
  void conflict(Attempts& attempts, const char* what);
  void lost(Attempts& attempts, const char* what);
  [[noreturn]] void unknown_outcome(const char* what);
  // The Failure for an error the server answered: its status by SQLSTATE, the
  // server's primary message, marked as this plugin's when it is a timeout or
  // an overload rather than a refusal of the input.
  static Failure sql_failure(const std::string& sqlstate, const char* what);

  const mgw_host_api* host_;
  Pool pool_;
  int schema_version_ = 0;
  // Set once the schema is up to date: from then on every connection gets
  // the statements prepared before its first use.
  bool statements_ready_ = false;
};

}  // namespace mgw_pg
