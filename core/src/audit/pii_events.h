// The one place a PII decision becomes an audit event: a block, or findings
// flagged and let through (the block and flag modes, and a block mode's
// non-critical findings). Today it writes a structured log line; the audit log,
// when it lands, records the same event here. An event holds the request, the
// tenant, the key, where in the request and which categories how often:
// never a value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace modelgw::audit {

struct PiiEvent {
  std::string_view action;  // "pii.blocked" or "pii.flagged"
  std::string_view request_id;
  std::int64_t tenant_id = 0;
  std::int64_t key_id = 0;
  std::string_view param;     // the blocked text's path; empty for flags
  std::string_view findings;  // {"email":2}: categories and counts
};

void record_pii_event(const PiiEvent& event);

}  // namespace modelgw::audit
