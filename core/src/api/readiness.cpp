#include "api/readiness.h"

#include <nlohmann/json.hpp>

namespace modelgw::api {

void send_readiness(http::ServerCall& call, const usage::WriterStatus& usage, bool recording,
                    const audit::AuditLog::Status* audit) {
  nlohmann::json body = {{"request_id", call.request_id()},
                         {"status", recording ? "ready" : "not_ready"},
                         {"usage",
                          {{"state", usage.state},
                           {"queued", usage.queued},
                           {"journal_records", usage.journal_records},
                           {"journal_bytes", usage.journal_bytes},
                           {"written", usage.written}}}};
  if (audit != nullptr) {
    body["audit"] = {{"state", audit->failing ? "failing" : "storing"},
                     {"queued", audit->queued},
                     {"written", audit->written},
                     {"dropped", audit->dropped}};
  }
  call.send_json(recording ? 200 : 503, body.dump());
}

}  // namespace modelgw::api
