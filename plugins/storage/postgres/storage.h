// The opaque handle the host holds: one open database.
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/storage_plugin.hpp>

#include "config.h"
#include "database.h"
#include "failure.h"

struct mgw_storage {
  mgw_storage(const mgw_host_api* host, const mgw_pg::Config& config) : db(host, config) {}
  mgw_pg::Database db;
};

namespace mgw_pg {

// Every hook of mgw_storage_hooks, one group per file: storage.cpp
// (open/close, and the entry symbol), tenants.cpp, api_keys.cpp, usage.cpp,
// prompts.cpp, usage_query.cpp, budgets.cpp, leases.cpp, idempotency.cpp,
// audit.cpp, restore.cpp, responses.cpp.
MGW_STORAGE_DECLARE_HOOKS()

using mgw::storage::guarded;

// The database behind a handle; a NULL handle is the host's mistake.
inline Database& database_of(mgw_storage* storage) {
  if (storage == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "storage handle is NULL");
  return storage->db;
}

}  // namespace mgw_pg
