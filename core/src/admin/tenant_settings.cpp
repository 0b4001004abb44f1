#include "admin/tenant_settings.h"

#include "admin/admin_service.h"

namespace modelgw::admin {
namespace {

http::ApiError invalid(const std::string& member, const std::string& message) {
  return http::bad_request("invalid_parameter", "settings." + member + ": " + message, "settings." + member);
}

void check_member(const std::string& name, const nlohmann::json& value) {
  if (name == "disabled") {
    if (!value.is_boolean()) throw AdminError(invalid(name, "must be true or false"));
    return;
  }
  throw AdminError(invalid(name, "is not a known setting (known: disabled)"));
}

}  // namespace

nlohmann::json merge_settings(const nlohmann::json& current, const nlohmann::json& patch) {
  if (!patch.is_object()) {
    throw AdminError(http::bad_request("invalid_parameter", "settings must be a JSON object", "settings"));
  }
  nlohmann::json merged = current.is_object() ? current : nlohmann::json::object();
  for (const auto& [name, value] : patch.items()) {
    if (value.is_null()) {
      merged.erase(name);
      continue;
    }
    check_member(name, value);
    merged[name] = value;
  }
  return merged;
}

TenantSettings read_settings(const std::string& settings_json) {
  TenantSettings s;
  auto doc = nlohmann::json::parse(settings_json, nullptr, false);
  if (!doc.is_object()) return s;
  if (auto it = doc.find("disabled"); it != doc.end() && it->is_boolean()) s.disabled = it->get<bool>();
  return s;
}

}  // namespace modelgw::admin
