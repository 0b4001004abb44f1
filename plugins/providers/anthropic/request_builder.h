// The client's request → Anthropic's: an OpenAI chat request translated to
// POST /messages, or a native call (ABI 1.11) as messages_request.h builds it.
#pragma once

#include "provider_config.h"

#include <modelgw/plugin.h>

#include <string_view>

namespace mgw::anthropic {

// Builds the request for the call's operation (README.md, "Requests" and
// "Native operations", lists every rule) and emits it through `out`. A native
// call carries the client's anthropic-beta merged with the configured one. A request Anthropic cannot take is
// refused through `error` (400 invalid_parameter or 422 unsupported_parameter, naming the parameter) with
// MGW_INVALID_ARGUMENT, and nothing goes to `out`.
mgw_status build_request(const ProviderConfig& config, const mgw_call_context& call,
                         std::string_view client_body, const mgw_request_sink& out,
                         const mgw_response_sink* error);

}  // namespace mgw::anthropic
