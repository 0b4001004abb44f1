// The opaque handle the host holds: one open database.
#pragma once

#include <modelgw/plugin.h>

#include <utility>

#include "config.h"
#include "database.h"
#include "failure.h"

struct mgw_storage {
  mgw_storage(const mgw_host_api* host, mgw_sqlite::Config config) : db(host, std::move(config)) {}
  mgw_sqlite::Database db;
};

namespace mgw_sqlite {

// The database behind a handle; a NULL handle is the host's mistake.
inline Database& database_of(mgw_storage* storage) {
  if (storage == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "storage handle is NULL");
  return storage->db;
}

}  // namespace mgw_sqlite
