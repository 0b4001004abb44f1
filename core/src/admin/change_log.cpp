#include "admin/change_log.h"

#include <spdlog/spdlog.h>

namespace modelgw::admin {

void record_change(const Actor& actor, const std::string& action, const std::string& target) {
  // The audit log (a later issue) hooks in here, so every change reaches it.
  spdlog::info("admin change: {} {} by {}", action, target, actor.description);
}

}  // namespace modelgw::admin
