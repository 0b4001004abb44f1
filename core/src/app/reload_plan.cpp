#include "app/reload_plan.h"

#include "config/env_substitution.h"
#include "config/yaml_to_json.h"

#include <yaml-cpp/yaml.h>

namespace modelgw::app {
namespace {

constexpr const char* kRestartOnly[] = {"server", "storage",     "plugins_dir", "auth",   "usage",
                                        "audit",  "idempotency", "logging",     "budget", "console"};

}  // namespace

nlohmann::json read_config_tree(const std::string& path) {
  if (path.empty()) return nullptr;
  try {
    std::vector<std::string> unset;
    return config::yaml_to_json(YAML::LoadFile(path), "", config::process_env, unset);
  } catch (const std::exception&) {
    return nullptr;  // the loader reports what is wrong with the file
  }
}

std::vector<std::string> keep_restart_only(const config::Config& running, const nlohmann::json& running_tree,
                                           config::Config& next, nlohmann::json& next_tree) {
  std::vector<std::string> changed;
  const auto section = [](const nlohmann::json& tree, const char* key) {
    return tree.is_object() && tree.contains(key) ? tree.at(key) : nlohmann::json();
  };
  for (const char* key : kRestartOnly) {
    const nlohmann::json running_section = section(running_tree, key);
    if (running_section == section(next_tree, key)) continue;
    changed.emplace_back(key);
    // The tree keeps what runs, so the next reload warns about it again.
    if (!next_tree.is_object()) continue;
    if (running_section.is_null()) {
      next_tree.erase(key);
    } else {
      next_tree[key] = running_section;
    }
  }
  next.server = running.server;
  next.storage = running.storage;
  next.plugins_dir = running.plugins_dir;
  next.auth = running.auth;
  next.usage = running.usage;
  next.audit = running.audit;
  next.idempotency = running.idempotency;
  next.logging = running.logging;
  next.budget = running.budget;
  next.console = running.console;
  return changed;
}

}  // namespace modelgw::app
