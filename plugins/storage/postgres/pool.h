// A bounded pool of connections, opened lazily. A hook borrows one for its
// transaction (or query) and gives it back before it hands rows to the host,
// so a row sink that calls back into storage never holds two. When all are
// busy, a hook waits up to acquire_timeout_ms, then gets MGW_UNAVAILABLE.
#pragma once

#include <modelgw/plugin.h>

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "connection.h"

namespace mgw_pg {

struct PoolSettings {
  std::string conninfo;     // holds the password: never shown
  std::string password;     // masked out of libpq's messages
  std::string description;  // host, port, database, user: for messages
  SessionSettings session;
  std::size_t size = 8;
  int acquire_timeout_ms = 5000;
};

class Pool {
 public:
  explicit Pool(PoolSettings settings);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // A borrowed connection, returned to the pool when the lease ends, or
  // closed when discard() was called (it broke).
  class Lease {
   public:
    Lease(Pool& pool, std::unique_ptr<Connection> connection) noexcept
        : pool_(&pool), connection_(std::move(connection)) {}
    ~Lease() { pool_->release(std::move(connection_), discard_); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

    Connection& connection() noexcept { return *connection_; }
    void discard() noexcept { discard_ = true; }

   private:
    Pool* pool_;
    std::unique_ptr<Connection> connection_;
    bool discard_ = false;
  };

  // An idle connection, or a new one while fewer than `size` are open.
  // Throws Failure(MGW_UNAVAILABLE) when none frees up in time or the server
  // cannot be reached.
  Lease acquire();

  // Closes every idle connection: after one broke, the others most likely
  // did too (the server restarted), and each would fail one hook.
  void drop_idle() noexcept;

  const PoolSettings& settings() const noexcept { return settings_; }

 private:
  // Connects. Throws Failure(MGW_UNAVAILABLE) naming the server, never the password.
  std::unique_ptr<Connection> open();
  void release(std::unique_ptr<Connection> connection, bool discard) noexcept;

  const PoolSettings settings_;
  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<std::unique_ptr<Connection>> idle_;
  std::size_t open_ = 0;  // idle plus lent out plus being opened
};

}  // namespace mgw_pg
