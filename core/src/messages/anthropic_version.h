// The anthropic-version header of Anthropic's API: the version of the wire
// format the client speaks. The gateway serves the two Anthropic has
// published (2023-06-01, which every current SDK sends, and 2023-01-01,
// whose differences are in streaming details the gateway does not use); a
// client that sends none is read as 2023-06-01 (Anthropic itself requires
// the header; a curl user is spared it). Anything else is a 400 naming it.
#pragma once

#include "errors/api_error.h"

#include <optional>
#include <string_view>

namespace modelgw::messages {

std::optional<errors::ApiError> check_anthropic_version(std::string_view header);

}  // namespace modelgw::messages
