// OpenAI's embeddings answer (ABI 1.11, operation "embeddings") → the
// client's list, or an error. The body can be megabytes of numbers, so it is
// checked and cut with a validating scan (modelgw/provider/json_scan.hpp) and
// each vector's text is copied as the vendor wrote it: no DOM, no doubles.
#pragma once

#include "error_mapper.h"

#include <modelgw/plugin.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mgw::openai {

// For a 2xx {"object":"list","data":[...]}: one item per input (when the
// host's member index says how many), each index once, each "embedding" an
// array of numbers (or a string for encoding_format "base64"). Then
// callback_usage (usage.prompt_tokens; the host's count when the vendor sent
// none) and callback_body with the list, "model" the alias, items in index
// order. A non-2xx goes through map_http_error, an input problem naming
// "input"; anything else is a bad 2xx.
void map_embeddings_response(const ErrorContext& ctx, const mgw_call_context& call, int32_t http_status,
                             const mgw_header* headers, std::size_t header_count, std::string_view body,
                             const mgw_response_sink& out);

// An error of the chat mapper made to speak of embeddings: the prompt is
// "input", not "messages".
MappedError embeddings_error(MappedError e);

}  // namespace mgw::openai
