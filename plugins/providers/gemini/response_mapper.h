// Gemini's whole (non-streamed) response → the client's response or error.
#pragma once

#include "error_mapper.h"

#include <modelgw/plugin.h>

#include <cstddef>
#include <string_view>

namespace mgw::gemini {

// For a 2xx GenerateContentResponse: builds an OpenAI chat.completion (model:
// the alias, created: the call's time), reports usage through callback_usage
// (estimated when Gemini sent none), then the body through callback_body.
// A prompt Gemini blocked becomes one choice with content null and
// finish_reason "content_filter", as OpenAI reports filtered output.
// Everything else goes to callback_error, mapped by map_http_error or as a bad
// 2xx body.
void map_response(const ErrorContext& ctx, const mgw_call_context& call, int32_t http_status,
                  const mgw_header* headers, std::size_t header_count, std::string_view body,
                  const mgw_response_sink& out);

}  // namespace mgw::gemini
