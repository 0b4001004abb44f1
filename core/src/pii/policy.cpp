#include "pii/policy.h"

namespace modelgw::pii {
namespace {

std::string known_modes(const std::set<std::string>& modes) {
  std::string out(kModeOff);
  for (const auto& m : modes) out += ", " + m;
  return out;
}

}  // namespace

std::optional<std::string> check_policy_settings(const nlohmann::json& value,
                                                 const std::set<std::string>& modes) {
  if (!value.is_object()) return "must be an object with any of: mode, critical, allow";
  for (const auto& [member, v] : value.items()) {
    if (member == "mode") {
      if (!v.is_string()) return "mode: must be a string (" + known_modes(modes) + ")";
      const auto& m = v.get_ref<const std::string&>();
      if (m != kModeOff && !modes.count(m))
        return "mode: '" + m + "' is not a loaded mode (" + known_modes(modes) + ")";
    } else if (member == "critical") {
      if (!v.is_array()) return "critical: must be a list of category names";
      for (const auto& c : v) {
        if (!c.is_string() || !category_from_name(c.get_ref<const std::string&>())) {
          return "critical: each entry must be one of " + category_names();
        }
      }
    } else if (member == "allow") {
      if (!v.is_array()) return "allow: must be a list of strings";
      if (v.size() > kMaxAllowEntries)
        return "allow: at most " + std::to_string(kMaxAllowEntries) + " entries";
      for (const auto& a : v) {
        if (!a.is_string() || a.get_ref<const std::string&>().empty() ||
            a.get_ref<const std::string&>().size() > kMaxAllowValueBytes) {
          return "allow: each entry must be a non-empty string of at most " +
                 std::to_string(kMaxAllowValueBytes) + " bytes";
        }
      }
    } else {
      return "'" + member + "' is not a known member (known: mode, critical, allow)";
    }
  }
  return std::nullopt;
}

CategorySet critical_set(const std::vector<std::string>& names) {
  CategorySet set;
  for (const auto& n : names) {
    if (auto c = category_from_name(n)) set.add(*c);
  }
  return set;
}

Policy make_policy(const PolicyDefaults& defaults, const nlohmann::json& settings, std::string* warning) {
  Policy p{defaults.mode, defaults.critical, {}};
  if (!settings.is_object()) return p;
  if (auto it = settings.find("mode"); it != settings.end() && it->is_string()) {
    const auto& m = it->get_ref<const std::string&>();
    if (m == kModeOff || defaults.modes.count(m)) {
      p.mode = m;
    } else if (warning != nullptr) {
      *warning = "PII mode '" + m + "' is not loaded; using the default mode '" + defaults.mode + "'";
    }
  }
  if (auto it = settings.find("critical"); it != settings.end() && it->is_array()) {
    std::vector<std::string> names;
    for (const auto& c : *it) {
      if (c.is_string()) names.push_back(c.get<std::string>());
    }
    p.critical = critical_set(names);
  }
  if (auto it = settings.find("allow"); it != settings.end() && it->is_array()) {
    for (const auto& a : *it) {
      if (a.is_string()) p.allow.add(a.get_ref<const std::string&>());
    }
  }
  return p;
}

}  // namespace modelgw::pii
