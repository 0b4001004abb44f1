#pragma once

#include "config/env_substitution.h"

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace modelgw::config {

// Converts a YAML tree to JSON, substituting ${ENV} in every scalar first.
// Plain (unquoted) scalars are typed as YAML 1.2's core schema does (null,
// booleans, integers, floats); quoted scalars stay strings.
nlohmann::json yaml_to_json(const YAML::Node& node, const std::string& key_path, const EnvLookup& lookup,
                            std::vector<std::string>& unset);

}  // namespace modelgw::config
