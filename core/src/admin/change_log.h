// The one place every admin change passes through: a log line and an audit
// event in the tenant's chain (names and ids only: never a key, a token or a
// template's text).
#pragma once

#include "audit/audit_log.h"

#include <cstdint>
#include <string>

namespace modelgw::admin {

// Who made a change: "cli" for the shell, or the caller of the internal
// surface ("key 12 (tenant ops)", "token sub=... (tenant ops)").
struct Actor {
  std::string description;
  std::string request_id;  // the internal API call that made the change; empty for the CLI
};

// action: e.g. "tenant.create", "key.revoke", "prompt.activate".
// target: what it acted on, e.g. "tenant acme", "key 12", "prompt acme/greet v3".
// tenant_id: the tenant whose chain records it. `log` may be null.
void record_change(audit::AuditLog* log, const Actor& actor, std::int64_t tenant_id,
                   const std::string& action, const std::string& target);

}  // namespace modelgw::admin
