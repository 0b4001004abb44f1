// What the configuration loader says of a YAML text: the tests of its keys
// compare refusals by their message.
#pragma once

#include "app/config_loader.h"

#include <string>

namespace modelgw::config::testing {

// ConfigError's message for `yaml`, or "<no error>" when it loads.
inline std::string error_of(const std::string& yaml) {
  try {
    load_text(yaml);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace modelgw::config::testing
