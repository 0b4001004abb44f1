// A tenant's settings document: a JSON object of known members, each checked
// when set. Later capabilities (PII policy, limits, budgets) add members here.
//
//   disabled: bool   every request of the tenant's keys and tokens gets 403
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace modelgw::admin {

struct TenantSettings {
  bool disabled = false;
};

// Applies `patch` to `current` (a member set to null is removed) and returns
// the result. Throws AdminError naming the member for an unknown member or a
// wrong value.
nlohmann::json merge_settings(const nlohmann::json& current, const nlohmann::json& patch);

// Reads a stored document; members it does not know are ignored, so a newer
// gateway's settings never stop an older one.
TenantSettings read_settings(const std::string& settings_json);

}  // namespace modelgw::admin
