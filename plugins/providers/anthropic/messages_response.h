// Anthropic's whole answers to the native operations (ABI 1.11): a Messages
// `message`, relayed as it is with the alias as its model, and a token count.
#pragma once

#include "error_mapper.h"

#include <modelgw/plugin.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mgw::anthropic {

// Operation "messages". A 2xx `message`: callback_usage (usage.h: prompt =
// input + cache_creation + cache_read, cached = cache_read, cache-written =
// cache_creation), then callback_body with the vendor's bytes, "model" set to
// the alias and nothing else changed (a usage object, estimated, is added
// when the vendor sent none). A non-2xx goes through map_http_error; a 2xx
// error envelope or a body that is not a message is a 502 provider_failed,
// as on the chat path.
void map_messages_response(const ErrorContext& ctx, const mgw_call_context& call, int32_t http_status,
                           const mgw_header* headers, std::size_t header_count, std::string_view body,
                           const mgw_response_sink& out);

// Operation "count_tokens". A 2xx {"input_tokens": N}: callback_body with
// {"input_tokens":N} and no usage (a count is never billed). Failures as for
// "messages".
void map_count_tokens_response(const ErrorContext& ctx, int32_t http_status, const mgw_header* headers,
                               std::size_t header_count, std::string_view body, const mgw_response_sink& out);

}  // namespace mgw::anthropic
