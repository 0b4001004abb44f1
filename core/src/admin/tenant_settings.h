// A tenant's settings document: a JSON object of known members, each checked
// when set (merge_settings, for the admin operations); the request path reads
// it with tenants/stored_settings.h.
//
//   disabled: bool   every request of the tenant's keys and tokens gets 403
//   pii: object      the tenant's PII policy: mode, critical, allow (pii/policy.h)
//   rate_limits:     per minute, over the config's rate_limits; 0 turns one off:
//     {tenant_requests_per_minute, tenant_tokens_per_minute,
//      key_requests_per_minute, key_tokens_per_minute}
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>

namespace modelgw::admin {

// What a settings value is checked against.
struct SettingsRules {
  std::set<std::string> pii_modes;  // the loaded PII mode plugins ("off" is always allowed)
};

// Applies `patch` to `current` (a member set to null is removed) and returns
// the result. Throws AdminError naming the member for an unknown member or a
// wrong value.
nlohmann::json merge_settings(const nlohmann::json& current, const nlohmann::json& patch,
                              const SettingsRules& rules);

}  // namespace modelgw::admin
