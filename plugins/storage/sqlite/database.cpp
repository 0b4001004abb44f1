#include "database.h"

#include <modelgw/sdk.hpp>

#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "failure.h"
#include "migrations.h"

namespace mgw_sqlite {
namespace {

void create_parent_folders(const std::string& path) {
  auto parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return;  // a bare file name lives in the working directory
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw Failure(MGW_INTERNAL, "cannot create folder " + parent.string() + ": " + ec.message());
}

}  // namespace

Database::Database(const mgw_host_api* host, Config config) : host_(host), config_(std::move(config)) {
  try {
    // A library built with SQLITE_THREADSAFE=0 has no locks at all, and hooks
    // run on many threads.
    if (sqlite3_threadsafe() == 0)
      throw Failure(MGW_INTERNAL, "the SQLite library was built without thread support");
    idle_readers_.reserve(kMaxIdleReaders);  // so release_reader never allocates
    create_parent_folders(config_.path);
    writer_ = std::make_unique<Connection>(config_.path, Connection::Role::kWriter, config_.busy_timeout_ms);
    auto result = migrate(*writer_, host_, config_.migrate);
    schema_version_ = result.to;
  } catch (const Failure& failure) {
    throw Failure(failure.status(), config_.path + ": " + failure.what());
  }
  mgw::log(
      host_, MGW_LOG_INFO,
      "sqlite storage: opened " + config_.path + " at schema version " + std::to_string(schema_version_));
}

Database::~Database() {
  // Readers first: the last connection to close checkpoints the WAL into the
  // main file and removes it, and that should be the writer.
  idle_readers_.clear();
  writer_.reset();
}

std::unique_ptr<Connection> Database::acquire_reader() {
  {
    std::lock_guard lock(readers_mutex_);
    if (!idle_readers_.empty()) {
      auto connection = std::move(idle_readers_.back());
      idle_readers_.pop_back();
      return connection;
    }
  }
  // Opened outside the lock: opening touches the file and may wait.
  return std::make_unique<Connection>(config_.path, Connection::Role::kReader, config_.busy_timeout_ms);
}

void Database::release_reader(std::unique_ptr<Connection> connection) noexcept {
  if (connection == nullptr) return;
  {
    std::lock_guard lock(readers_mutex_);
    if (idle_readers_.size() < kMaxIdleReaders) {
      idle_readers_.push_back(std::move(connection));  // capacity reserved in the constructor: no throw
      return;
    }
  }
  // Surplus connection: closed here, outside the lock, when it goes out of scope.
}

}  // namespace mgw_sqlite
