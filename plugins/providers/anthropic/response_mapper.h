// Anthropic's whole (non-streamed) response → the client's response or error.
#pragma once

#include "error_mapper.h"

#include <modelgw/plugin.h>

#include <cstddef>
#include <string_view>

namespace mgw::anthropic {

// A 2xx Anthropic `message` becomes an OpenAI `chat.completion`: usage to
// callback_usage, then the body to callback_body. Every other answer goes to
// callback_error: a non-2xx through map_http_error, a 2xx that is not a
// message as 502 provider_failed.
void map_response(const ErrorContext& ctx, const mgw_call_context& call, int32_t http_status,
                  const mgw_header* headers, std::size_t header_count, std::string_view body,
                  const mgw_response_sink& out);

}  // namespace mgw::anthropic
