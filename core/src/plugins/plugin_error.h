#pragma once

#include <stdexcept>

namespace modelgw::plugins {

// A plugin could not be loaded or started. The message is one line that names
// the plugin file and what went wrong; start-up prints it and stops.
class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace modelgw::plugins
