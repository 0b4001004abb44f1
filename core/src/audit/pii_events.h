// The one place a PII decision becomes an audit event: a block, or findings
// flagged and let through (the block and flag modes, and a block mode's
// non-critical findings). It writes a structured log line and an event in the
// tenant's audit chain. An event holds the request, the tenant, the caller,
// where in the request and which categories how often: never a value.
#pragma once

#include "audit/audit_log.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace modelgw::audit {

struct PiiEvent {
  std::string_view action;  // "pii.blocked" or "pii.flagged"
  std::string_view request_id;
  std::int64_t tenant_id = 0;
  std::int64_t key_id = 0;
  std::string_view actor;     // Principal::describe()
  std::string_view param;     // the blocked text's path; empty for flags
  std::string_view findings;  // {"email":2}: categories and counts
};

// `log` may be null (the log line only).
void record_pii_event(AuditLog* log, const PiiEvent& event);

}  // namespace modelgw::audit
