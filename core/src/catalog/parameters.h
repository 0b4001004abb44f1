// The request parameters of OpenAI's chat API that a catalog model may or may
// not support (spec 2.1). The gateway checks a request against the selected
// model's list before any upstream call; see README "Parameter support".
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::catalog {

// Members every model takes: what the gateway itself reads.
bool is_core_member(std::string_view name);

// Every parameter name a catalog entry may list under `supports`.
std::span<const std::string_view> known_parameters();
bool is_known_parameter(std::string_view name);

// What an entry supports when its configuration lists nothing: the sampling and
// tool parameters that chat models share.
std::vector<std::string> default_supported_parameters();

}  // namespace modelgw::catalog
