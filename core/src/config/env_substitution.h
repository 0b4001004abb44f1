#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::config {

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// Replaces ${NAME} and ${NAME:-default} in a scalar. An unset NAME without a
// default becomes empty and is reported in `unset`. "$${" escapes a literal "${".
// Throws ConfigError (prefixed with `key_path`) on an unterminated reference.
std::string substitute_env(std::string_view value, const std::string& key_path, const EnvLookup& lookup,
                           std::vector<std::string>& unset);

// Looks a variable up in the process environment.
std::optional<std::string> process_env(const std::string& name);

}  // namespace modelgw::config
