// A tenant's stored settings document (admin/tenant_settings.h checks what
// is written) as the request path reads it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace modelgw::tenants {

struct TenantSettings {
  bool disabled = false;
  nlohmann::json pii;          // the stored settings.pii value; null when none
  nlohmann::json rate_limits;  // the stored settings.rate_limits object; null when none
};

// Reads a stored document; members it does not know are ignored, so a newer
// gateway's settings never stop an older one.
TenantSettings read_settings(const std::string& settings_json);

}  // namespace modelgw::tenants
