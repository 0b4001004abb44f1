#include "audit/pii_events.h"

#include "logging/request_log.h"

namespace modelgw::audit {

void record_pii_event(AuditLog* log, const PiiEvent& e) {
  if (log != nullptr) {
    nlohmann::json details = {{"findings", nlohmann::json::parse(e.findings, nullptr, false)}};
    if (details["findings"].is_discarded()) details["findings"] = nlohmann::json::object();
    // Past a tenant's first few a minute, counted into one event (audit_log.h).
    if (log->pii_event_due(e.tenant_id, std::string(e.action), details["findings"])) {
      if (!e.param.empty()) details["param"] = e.param;
      log->record(Event{e.tenant_id, std::string(e.actor), std::string(e.action),
                        "request " + std::string(e.request_id), std::string(e.request_id),
                        std::move(details)});
    }
  }
  // request= stays in the text too: the line mirrors the audit event it records.
  logging::for_request(e.request_id)
      .info("audit: {} request={} tenant_id={} key_id={} param={} findings={}", e.action, e.request_id,
            e.tenant_id, e.key_id, e.param.empty() ? "-" : e.param, e.findings);
}

}  // namespace modelgw::audit
