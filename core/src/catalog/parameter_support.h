// What one catalog model does with each request parameter: admitted (within
// a range), dropped and named in X-Dropped-Params, or refused. Derived at
// start-up from the parameters its provider plugin declares (ABI 1.4,
// mgw_param_spec) and the catalog entry's `supports`, which may narrow the
// plugin's list but never widen it: a parameter the plugin cannot map is
// never admitted and silently lost.
#pragma once

#include "config/config.h"
#include "plugins/provider.h"

#include <map>
#include <set>
#include <string>
#include <utility>

namespace modelgw::catalog {

struct ParameterSupport {
  std::set<std::string, std::less<>> supports;      // admitted
  std::set<std::string, std::less<>> plugin_drops;  // removed because the vendor has no equivalent
  std::map<std::string, std::pair<double, double>, std::less<>> ranges;  // admitted numbers' bounds
};

// Throws config::ConfigError when the entry lists a parameter its provider's
// plugin does not map.
ParameterSupport derive_parameter_support(const config::CatalogEntry& entry,
                                          const plugins::Provider& provider);

}  // namespace modelgw::catalog
