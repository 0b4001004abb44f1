// The opaque handle the host holds: one open database.
#pragma once

#include <modelgw/plugin.h>

#include "config.h"
#include "database.h"
#include "failure.h"

struct mgw_storage {
  mgw_storage(const mgw_host_api* host, const mgw_pg::Config& config) : db(host, config) {}
  mgw_pg::Database db;
};

namespace mgw_pg {

// The database behind a handle; a NULL handle is the host's mistake.
inline Database& database_of(mgw_storage* storage) {
  if (storage == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "storage handle is NULL");
  return storage->db;
}

}  // namespace mgw_pg
