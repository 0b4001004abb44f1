// The anthropic-version header of Anthropic's API: the version of the wire
// format the client speaks, a date. The gateway serves the shapes of
// 2023-06-01, which every later version (the SDKs send their own release's
// date) only extends with members the gateway passes through natively or
// ignores in translation; so any date from 2023-01-01 on is accepted, and a
// client that sends none is read as 2023-06-01 (Anthropic itself requires
// the header; a curl user is spared it). Anything that is not such a date is
// a 400 naming the header.
#pragma once

#include "errors/api_error.h"

#include <optional>
#include <string_view>

namespace modelgw::messages {

std::optional<errors::ApiError> check_anthropic_version(std::string_view header);

}  // namespace modelgw::messages
