// The open database: one writer connection behind a mutex, and a pool of
// reader connections.
//
// Why this shape: SQLite allows one writer at a time per file anyway, so a
// single writer connection loses nothing and makes in-process writers queue on
// a mutex instead of spinning in the busy handler. WAL lets any number of
// readers run beside that writer, so reads (the per-request key lookup above
// all) take an idle reader connection from a pool and never wait for writes.
// Other processes on the same file are kept in order by SQLite's own locks:
// writes start with BEGIN IMMEDIATE and wait up to busy_timeout_ms.
#pragma once

#include <modelgw/plugin.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "config.h"
#include "connection.h"
#include "transaction.h"

namespace mgw_sqlite {

class Database {
 public:
  // Creates the file's parent folders, opens the writer, switches the file to
  // WAL and migrates the schema. Throws Failure naming the path.
  Database(const mgw_host_api* host, Config config);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs body(Connection&) in a write transaction; commits what it returns
  // normally, rolls back when it throws.
  template <typename Body>
  auto write(Body&& body) {
    std::lock_guard lock(writer_mutex_);
    WriteTransaction transaction(*writer_);
    auto result = std::forward<Body>(body)(*writer_);
    transaction.commit();
    return result;
  }

  // Runs body(Connection&) on a reader connection of its own.
  template <typename Body>
  auto read(Body&& body) {
    ReaderLease lease(*this);
    return std::forward<Body>(body)(*lease.connection);
  }

  const mgw_host_api* host() const noexcept { return host_; }
  int schema_version() const noexcept { return schema_version_; }

  // Idle readers kept for reuse. A burst of more concurrent reads opens extra
  // connections and closes them afterwards rather than making anyone wait, so
  // a row-sink callback that calls back into storage cannot deadlock.
  static constexpr std::size_t kMaxIdleReaders = 8;

 private:
  struct ReaderLease {
    explicit ReaderLease(Database& db) : owner(db), connection(db.acquire_reader()) {}
    ~ReaderLease() { owner.release_reader(std::move(connection)); }
    ReaderLease(const ReaderLease&) = delete;
    ReaderLease& operator=(const ReaderLease&) = delete;
    Database& owner;
    std::unique_ptr<Connection> connection;
  };

  std::unique_ptr<Connection> acquire_reader();
  void release_reader(std::unique_ptr<Connection> connection) noexcept;

  const mgw_host_api* host_;
  Config config_;
  int schema_version_ = 0;

  std::mutex writer_mutex_;
  std::unique_ptr<Connection> writer_;

  std::mutex readers_mutex_;
  std::vector<std::unique_ptr<Connection>> idle_readers_;
};

}  // namespace mgw_sqlite
