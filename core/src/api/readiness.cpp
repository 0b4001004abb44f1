#include "api/readiness.h"

#include <nlohmann/json.hpp>

namespace modelgw::api {

void send_readiness(http::ServerCall& call, const usage::WriterStatus& usage, bool recording,
                    const audit::AuditLog::Status* audit, const ReadinessState& checks) {
  const bool ready = recording && checks.ready();
  nlohmann::json failed = nlohmann::json::array();
  if (!recording) failed.push_back("usage");
  if (checks.storage != ReadinessState::Storage::reachable) failed.push_back("storage");
  if (!checks.keyset_ok) failed.push_back("jwt_keyset");
  if (checks.draining) failed.push_back("draining");
  nlohmann::json body = {
      {"request_id", call.request_id()},
      {"status", ready ? "ready" : "not_ready"},
      {"failed", failed},
      {"usage",
       {{"state", usage.state},
        {"queued", usage.queued},
        {"journal_records", usage.journal_records},
        {"journal_bytes", usage.journal_bytes},
        {"written", usage.written}}},
      {"storage", {{"state", storage_state_name(checks.storage)}, {"checked_ms_ago", checks.age_ms}}},
      {"plugins", {{"loaded", checks.plugins_loaded}}},
      {"draining", checks.draining}};
  if (checks.jwt_enabled) body["jwt_keyset"] = {{"state", checks.keyset_ok ? "available" : "unavailable"}};
  if (audit != nullptr) {
    body["audit"] = {{"state", audit->failing ? "failing" : "storing"},
                     {"queued", audit->queued},
                     {"written", audit->written},
                     {"dropped", audit->dropped}};
  }
  call.send_json(ready ? 200 : 503, body.dump());
}

}  // namespace modelgw::api
