// One SQLite connection and its cache of prepared statements.
//
// A Connection is used by one thread at a time (Database hands it out under a
// lock), so it is opened with SQLITE_OPEN_NOMUTEX and its cache needs no lock.
#pragma once

#include <modelgw/plugin.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace mgw_sqlite {

// A cached prepared statement, borrowed for one use. Text is bound without a
// copy (SQLITE_STATIC): the caller's bytes must outlive the Statement, which is
// why the destructor resets the statement and clears its bindings; resetting
// also ends the implicit read transaction, so a WAL checkpoint is never held up
// by an idle cached statement.
class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) noexcept : db_(db), stmt_(stmt) {}
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int index, std::int64_t value);
  void bind(int index, std::string_view text);  // always TEXT, never NULL ("" for empty)

  // Steps once: true when a row is ready, false when done. Throws Failure.
  bool step();
  // Steps a statement that returns no rows.
  void run();
  // Ready to run again with new bindings.
  void reset() noexcept;

  std::int64_t int64(int column) const noexcept;
  // Valid until the next step() or the end of this Statement.
  std::string_view text(int column) const noexcept;
  mgw_str str(int column) const noexcept;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

class Connection {
 public:
  enum class Role {
    kWriter,  // creates the file; the one connection that writes
    kReader,  // query_only: a bug that writes through it fails loudly
  };

  // Opens `path` with the settings every connection needs. Throws Failure.
  Connection(const std::string& path, Role role, int busy_timeout_ms);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // The prepared statement for `sql`, prepared on first use and kept. `sql`
  // holds placeholders only, never values.
  Statement statement(std::string_view sql);

  // Runs a script of statements without results (schema migrations).
  void exec(const std::string& sql);

  // A single-value PRAGMA or query, as text (e.g. "PRAGMA journal_mode=WAL").
  std::string query_text(std::string_view sql);
  std::int64_t query_int64(std::string_view sql);

  std::int64_t last_insert_rowid() const noexcept;
  std::int64_t changes() const noexcept;

 private:
  void close() noexcept;

  sqlite3* db_ = nullptr;
  std::map<std::string, sqlite3_stmt*, std::less<>> cache_;
};

}  // namespace mgw_sqlite
