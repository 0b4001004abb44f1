#include "admin/tenant_settings.h"

#include "admin/admin_service.h"
#include "pii/policy.h"

namespace modelgw::admin {
namespace {

errors::ApiError invalid_setting(const std::string& member, const std::string& message) {
  return errors::bad_request("invalid_parameter", "settings." + member + ": " + message,
                             "settings." + member);
}

void check_member(const std::string& name, const nlohmann::json& value, const SettingsRules& rules) {
  if (name == "disabled") {
    if (!value.is_boolean()) throw AdminError(invalid_setting(name, "must be true or false"));
    return;
  }
  if (name == "pii") {
    if (auto problem = pii::check_policy_settings(value, rules.pii_modes))
      throw AdminError(invalid_setting(name, *problem));
    return;
  }
  if (name == "rate_limits") {
    if (!value.is_object()) throw AdminError(invalid_setting(name, "must be an object of per-minute limits"));
    for (const auto& [limit, n] : value.items()) {
      if (limit != "tenant_requests_per_minute" && limit != "tenant_tokens_per_minute" &&
          limit != "key_requests_per_minute" && limit != "key_tokens_per_minute") {
        throw AdminError(
            invalid_setting(name + "." + errors::input_excerpt(limit),
                            "is not a rate limit (known: tenant_requests_per_minute, "
                            "tenant_tokens_per_minute, key_requests_per_minute, key_tokens_per_minute)"));
      }
      if (!n.is_number_integer() || n.get<std::int64_t>() < 0 || n.get<std::int64_t>() > 1'000'000'000'000) {
        throw AdminError(
            invalid_setting(name + "." + limit, "must be an integer from 0 (no limit) to 10^12"));
      }
    }
    return;
  }
  throw AdminError(invalid_setting(name, "is not a known setting (known: disabled, pii, rate_limits)"));
}

}  // namespace

nlohmann::json merge_settings(const nlohmann::json& current, const nlohmann::json& patch,
                              const SettingsRules& rules) {
  if (!patch.is_object()) {
    throw AdminError(errors::bad_request("invalid_parameter", "settings must be a JSON object", "settings"));
  }
  nlohmann::json merged = current.is_object() ? current : nlohmann::json::object();
  for (const auto& [name, value] : patch.items()) {
    if (value.is_null()) {
      merged.erase(name);
      continue;
    }
    check_member(name, value, rules);
    merged[name] = value;
  }
  return merged;
}

}  // namespace modelgw::admin
