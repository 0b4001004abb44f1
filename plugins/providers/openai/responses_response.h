// OpenAI's whole Responses answer (ABI 1.10, operation "responses") → the
// client's `response` object, or an error.
#pragma once

#include "error_mapper.h"

#include <modelgw/plugin.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mgw::openai {

// For a 2xx `response` object: a "failed" status is a 502 provider_failed;
// otherwise its usage goes to callback_usage (an estimate, also added to the
// body, when it has none), then the object, "model" set to the alias, to
// callback_body. A non-2xx goes through map_http_error; anything else that is
// not a `response` object is a bad 2xx.
void map_responses_response(const ErrorContext& ctx, const mgw_call_context& call, int32_t http_status,
                            const mgw_header* headers, std::size_t header_count, std::string_view body,
                            const mgw_response_sink& out);

// The 502 provider_failed for a `response` whose status is "failed", with a
// short prefix of its error.message (masked); `prefix` says where it was seen.
MappedError failed_response_error(std::string prefix, const provider::Json& response,
                                  std::string_view api_key, bool retryable);

}  // namespace mgw::openai
