#pragma once

#include "config/config.h"

#include <string>

namespace modelgw::config {

// Reads and validates a YAML file. Throws ConfigError naming the key path.
Config load_file(const std::string& path);

// Same, from YAML text (tests).
Config load_text(const std::string& yaml, const std::string& source_name = "<text>");

}  // namespace modelgw::config
