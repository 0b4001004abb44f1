#include "connection.h"

#include <sqlite3.h>

#include <string>

#include "failure.h"

namespace mgw_sqlite {

Statement::~Statement() {
  reset();
}

void Statement::reset() noexcept {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

void Statement::bind(int index, std::int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) throw_sqlite(db_, rc);
}

void Statement::bind(int index, std::string_view text) {
  // A null pointer would bind SQL NULL; every text column is NOT NULL.
  const char* bytes = text.data() != nullptr ? text.data() : "";
  int rc = sqlite3_bind_text64(stmt_, index, bytes, text.size(), SQLITE_STATIC, SQLITE_UTF8);
  if (rc != SQLITE_OK) throw_sqlite(db_, rc);
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw_sqlite(db_, rc);
}

void Statement::run() {
  while (step()) {
  }
}

std::int64_t Statement::int64(int column) const noexcept {
  return sqlite3_column_int64(stmt_, column);
}

std::string_view Statement::text(int column) const noexcept {
  // sqlite3_column_text before sqlite3_column_bytes, as SQLite documents, so the
  // length is that of the UTF-8 form just produced.
  const auto* bytes = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (bytes == nullptr) return {};
  return {bytes, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))};
}

mgw_str Statement::str(int column) const noexcept {
  auto t = text(column);
  return mgw_str{t.data(), t.size()};
}

namespace {

// SQLite counts every allocation under a process-wide mutex for
// sqlite3_status(), which nothing here reads: the usage writer took and gave
// back that mutex several times per record. Off before SQLite initialises
// (the first open); when the process initialised SQLite earlier, the call
// fails harmlessly and the counters stay on.
void turn_off_memory_statistics() {
  static const bool once = [] {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return true;
  }();
  (void)once;
}

}  // namespace

Connection::Connection(const std::string& path, Role role, int busy_timeout_ms) {
  turn_off_memory_statistics();
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
  if (role == Role::kWriter) flags |= SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    // The handle exists even when open fails; take its message, then close it.
    std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Failure(status_from_sqlite(rc), message);
  }
  try {
    sqlite3_extended_result_codes(db_, 1);  // tell UNIQUE from FOREIGN KEY failures
    // Before anything touches the file, so even the first read waits for a
    // writer in another process instead of failing at once.
    sqlite3_busy_timeout(db_, busy_timeout_ms);
    if (role == Role::kWriter) {
      // WAL is a property of the file: set once by the writer, readers then see
      // it. Readers never block the writer and the writer never blocks readers.
      auto mode = query_text("PRAGMA journal_mode=WAL");
      if (mode != "wal")
        throw Failure(MGW_INTERNAL, "cannot switch to WAL mode (journal_mode is " + mode + ")");
      // In WAL mode NORMAL stays consistent after a crash; it may lose only the
      // last commits on power loss, an acceptable price for usage rows.
      exec("PRAGMA synchronous=NORMAL");
      exec("PRAGMA foreign_keys=ON");  // per connection; off by default in SQLite
    } else {
      exec("PRAGMA query_only=ON");
    }
  } catch (...) {
    close();  // the destructor does not run for a constructor that threw
    throw;
  }
}

Connection::~Connection() {
  close();
}

void Connection::close() noexcept {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  cache_.clear();
  sqlite3_close(db_);  // every statement is finalized, so this does not fail with BUSY
  db_ = nullptr;
}

Statement Connection::statement(std::string_view sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    sqlite3_stmt* stmt = nullptr;
    // PERSISTENT: a hint that the statement is kept for the connection's life.
    int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                &stmt, nullptr);
    if (rc != SQLITE_OK) throw_sqlite(db_, rc);
    try {
      it = cache_.emplace(std::string(sql), stmt).first;
    } catch (...) {
      sqlite3_finalize(stmt);
      throw;
    }
  }
  return Statement(db_, it->second);
}

void Connection::exec(const std::string& sql) {
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) throw_sqlite(db_, rc);
}

std::string Connection::query_text(std::string_view sql) {
  auto stmt = statement(sql);
  if (!stmt.step()) return {};
  return std::string(stmt.text(0));
}

std::int64_t Connection::query_int64(std::string_view sql) {
  auto stmt = statement(sql);
  if (!stmt.step()) return 0;
  return stmt.int64(0);
}

std::int64_t Connection::last_insert_rowid() const noexcept {
  return sqlite3_last_insert_rowid(db_);
}

std::int64_t Connection::changes() const noexcept {
  return sqlite3_changes64(db_);
}

}  // namespace mgw_sqlite
