// A tenant's PII policy: which mode handles its findings, which categories
// are critical, and which values are allowed. The gateway's config gives the
// defaults; a tenant's settings document may override each part:
//
//   "pii": {"mode": "mask", "critical": ["payment_card", "ssn"], "allow": ["help@acme.example"]}
#pragma once

#include "pii/allow_list.h"
#include "pii/category.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace modelgw::pii {

inline constexpr std::string_view kModeOff = "off";
inline constexpr std::size_t kMaxAllowEntries = 1000;
inline constexpr std::size_t kMaxAllowValueBytes = 256;

struct Policy {
  std::string mode;  // "off" or the name of a loaded mode plugin
  CategorySet critical;
  AllowList allow;
};

// What the config says when a tenant says nothing.
struct PolicyDefaults {
  std::string mode;
  CategorySet critical;
  std::set<std::string> modes;  // the loaded mode plugins' names
};

// Checks a settings.pii value; returns the problem ("mode: ..." naming the
// member) or nullopt. Mode names are checked against `modes` ("off" is always known).
std::optional<std::string> check_policy_settings(const nlohmann::json& value,
                                                 const std::set<std::string>& modes);

// The effective policy: `settings` (a stored settings.pii value; may be null or
// stale) over the defaults. A stored mode that is no longer loaded falls back
// to the default mode, with `warning` set for the log.
Policy make_policy(const PolicyDefaults& defaults, const nlohmann::json& settings,
                   std::string* warning = nullptr);

CategorySet critical_set(const std::vector<std::string>& names);  // unknown names are ignored

}  // namespace modelgw::pii
