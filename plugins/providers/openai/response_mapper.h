// OpenAI's whole (non-streamed) response → the client's response or error.
#pragma once

#include "error_mapper.h"

#include <modelgw/plugin.h>

#include <string_view>

namespace mgw::openai {

// For a 2xx `chat.completion`: "model" becomes the alias, any "request_id" is
// dropped, usage goes to callback_usage (estimated, with the host's prompt
// count, and added to the body when the vendor sent none), then the body to callback_body. Everything else
// goes to callback_error, mapped by map_http_error or as a bad 2xx body.
void map_response(const ErrorContext& ctx, const mgw_call_context& call, int32_t http_status,
                  const mgw_header* headers, std::size_t header_count, std::string_view body,
                  const mgw_response_sink& out);

// Fails a 2xx the vendor should never send (a body that is not what it
// answers). Retryable: the same call usually gets a proper answer. `what`
// says what was wrong, never the bytes.
void bad_success(const mgw_response_sink& out, int32_t status, std::string_view what);

}  // namespace mgw::openai
