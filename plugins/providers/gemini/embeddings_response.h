// Gemini's batchEmbedContents answer (ABI 1.11, operation "embeddings") →
// the client's OpenAI list, or an error. Checked and cut with a validating
// scan (modelgw/provider/json_scan.hpp): each vector's text is copied as
// Gemini wrote it for "float", converted to float32 base64 for "base64".
#pragma once

#include "error_mapper.h"

#include <modelgw/plugin.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mgw::gemini {

// For a 2xx {"embeddings":[{"values":[...]}, ...]}: one embedding per input
// (when the host's member index says how many), in order. Gemini reports no
// tokens, so callback_usage gets the host's count (call->prompt_tokens),
// then callback_body the list, "model" the alias. A non-2xx goes through
// map_http_error (a prompt problem naming "input"); anything else is a bad
// 2xx.
void map_embeddings_response(const ErrorContext& ctx, const mgw_call_context& call, int32_t http_status,
                             const mgw_header* headers, std::size_t header_count, std::string_view body,
                             const mgw_response_sink& out);

}  // namespace mgw::gemini
