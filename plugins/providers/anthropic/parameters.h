// The request parameters this provider takes, as data (ABI 1.4,
// mgw_param_spec): the host admits, drops or refuses each from this table
// before a request reaches the plugin, so none is silently lost.
#pragma once

#include <modelgw/plugin.h>

#include <vector>

namespace mgw::anthropic {

std::vector<mgw_param_spec> parameters();

}  // namespace mgw::anthropic
