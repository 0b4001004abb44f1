#include "pool.h"

#include <pqxx/pqxx>

#include <chrono>

#include "dsn.h"
#include "failure.h"

namespace mgw_pg {

Pool::Pool(PoolSettings settings) : settings_(std::move(settings)) {
  idle_.reserve(settings_.size);  // so release() never allocates
}

Pool::~Pool() {
  idle_.clear();
}

Pool::Lease Pool::acquire() {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(settings_.acquire_timeout_ms);
  {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (!idle_.empty()) {
        auto connection = std::move(idle_.back());
        idle_.pop_back();
        return Lease(*this, std::move(connection));
      }
      if (open_ < settings_.size) break;
      if (freed_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty() &&
          open_ >= settings_.size) {
        throw Failure(MGW_UNAVAILABLE, "postgres storage: no database connection came free within " +
                                           std::to_string(settings_.acquire_timeout_ms) + " ms (pool_size " +
                                           std::to_string(settings_.size) + ")");
      }
    }
    ++open_;  // a slot for the connection opened below, outside the lock
  }
  try {
    return Lease(*this, open());
  } catch (...) {
    {
      std::lock_guard lock(mutex_);
      --open_;
    }
    freed_.notify_one();
    throw;
  }
}

std::unique_ptr<Connection> Pool::open() {
  try {
    return std::make_unique<Connection>(settings_.conninfo, settings_.session);
  } catch (const pqxx::broken_connection& e) {
    // libpq's text names host and port, never the password; masked anyway.
    throw Failure(MGW_UNAVAILABLE, "postgres storage: cannot reach the database (" + settings_.description +
                                       "): " + mask_secrets(one_line(e.what()), settings_.password));
  } catch (const pqxx::sql_error& e) {
    throw Failure(status_from_sqlstate(e.sqlstate()),
                  "postgres storage: cannot set up a connection: " +
                      mask_secrets(primary_message(e.what()), settings_.password));
  }
}

void Pool::drop_idle() noexcept {
  std::vector<std::unique_ptr<Connection>> idle;
  {
    std::lock_guard lock(mutex_);
    idle.swap(idle_);
    open_ -= idle.size();
    try {
      idle_.reserve(settings_.size);
    } catch (...) {  // out of memory: release() then may allocate, and may not
    }
  }
  freed_.notify_all();
  // Closed here, outside the lock.
}

void Pool::release(std::unique_ptr<Connection> connection, bool discard) noexcept {
  if (connection == nullptr) return;
  if (discard || !connection->is_open()) {
    connection.reset();  // closed outside the lock
    {
      std::lock_guard lock(mutex_);
      --open_;
    }
    freed_.notify_one();
    return;
  }
  {
    std::lock_guard lock(mutex_);
    if (idle_.size() < idle_.capacity()) {
      idle_.push_back(std::move(connection));
    } else {
      --open_;  // cannot keep it without allocating: close it instead
    }
  }
  freed_.notify_one();
}

}  // namespace mgw_pg
