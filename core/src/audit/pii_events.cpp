#include "audit/pii_events.h"

#include <spdlog/spdlog.h>

namespace modelgw::audit {

void record_pii_event(const PiiEvent& e) {
  spdlog::info("audit: {} request={} tenant_id={} key_id={} param={} findings={}", e.action, e.request_id,
               e.tenant_id, e.key_id, e.param.empty() ? "-" : e.param, e.findings);
}

}  // namespace modelgw::audit
