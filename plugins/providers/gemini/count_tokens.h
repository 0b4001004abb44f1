// The prompt's exact size as Gemini counts it (ABI 1.11, operation
// "count_tokens"): a chat completions body translated as for generateContent
// and sent to models/{model}:countTokens; its totalTokens answered as
// {"input_tokens": N}.
#pragma once

#include "error_mapper.h"

#include <modelgw/plugin.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mgw::gemini {

// {"generateContentRequest":{"model":"models/<model>","contents":[...]
// [,"systemInstruction":{...}][,"tools":[...]]}} from a chat completions
// body: the prompt only (generation settings do not change the count).
// nullopt, after callback_error (400 invalid_parameter naming the field) on
// `error`, when the body cannot be translated.
std::optional<std::string> count_tokens_body(const mgw_call_context& call, std::string_view client_body,
                                             const mgw_response_sink* error);

// For a 2xx CountTokensResponse: callback_body with {"input_tokens":
// totalTokens} (absent is 0, as proto3 JSON leaves zeros out); no usage. A
// non-2xx goes through map_http_error; anything else is a bad 2xx.
void map_count_tokens_response(const ErrorContext& ctx, const mgw_call_context& call, int32_t http_status,
                               const mgw_header* headers, std::size_t header_count, std::string_view body,
                               const mgw_response_sink& out);

}  // namespace mgw::gemini
