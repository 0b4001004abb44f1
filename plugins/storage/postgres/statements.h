// Every fixed statement the hooks run, by name. Each connection prepares all
// of them when it is first used (Connection::prepare_statements), so the hot
// paths (key and tenant lookups, usage inserts, leases, idempotency keys) parse
// and plan nothing per call. Statements whose text depends on the filters in
// use (usage and audit queries) are sent with exec_params instead.
#pragma once

#include <span>

namespace mgw_pg {

struct NamedStatement {
  const char* name;
  const char* sql;  // placeholders only, never values
};

std::span<const NamedStatement> statements() noexcept;

}  // namespace mgw_pg
