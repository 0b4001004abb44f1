// Client request → OpenAI HTTP request.
#pragma once

#include "provider_config.h"

#include <modelgw/plugin.h>

#include <string_view>

namespace mgw::openai {

// Builds POST /chat/completions: the client's body with "model" set to the
// upstream model, the gateway's own fields dropped and, for streams, usage
// requested. A Responses call (ABI 1.10) is POST /responses instead, with the
// body of responses_request.h. Emits through `out`; refuses through `error` and returns
// MGW_INVALID_ARGUMENT when the body cannot go upstream.
mgw_status build_request(const ProviderConfig& config, const mgw_call_context& call,
                         std::string_view client_body, const mgw_request_sink& out,
                         const mgw_response_sink* error);

// Appends `"name":value` (value as JSON text) to an object being written
// from its opening brace on, with the comma before it when needed.
void append_member(std::string& out, std::string_view name, std::string_view value);

}  // namespace mgw::openai
