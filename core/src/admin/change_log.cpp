#include "admin/change_log.h"

#include <spdlog/spdlog.h>

namespace modelgw::admin {

void record_change(audit::AuditLog* log, const Actor& actor, std::int64_t tenant_id,
                   const std::string& action, const std::string& target) {
  spdlog::info("admin change: {} {} by {}", action, target, actor.description);
  // In the log before the change is acknowledged (admin calls run off the loops).
  if (log != nullptr)
    log->record_now(audit::Event{tenant_id, actor.description, action, target, actor.request_id, {}});
}

}  // namespace modelgw::admin
