#include "tenants/stored_settings.h"

namespace modelgw::tenants {

TenantSettings read_settings(const std::string& settings_json) {
  TenantSettings s;
  auto doc = nlohmann::json::parse(settings_json, nullptr, false);
  if (!doc.is_object()) return s;
  if (auto it = doc.find("disabled"); it != doc.end() && it->is_boolean()) s.disabled = it->get<bool>();
  if (auto it = doc.find("pii"); it != doc.end() && it->is_object()) s.pii = *it;
  if (auto it = doc.find("rate_limits"); it != doc.end() && it->is_object()) s.rate_limits = *it;
  return s;
}

}  // namespace modelgw::tenants
