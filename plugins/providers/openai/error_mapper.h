// Maps the vendor's failures onto the gateway's error contract (spec §7): the
// SDK's status table (modelgw/provider/errors.hpp) refined by what an OpenAI
// error body says. The table is in README.md; keep the two in step.
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/provider/errors.hpp>
#include <modelgw/provider/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mgw::openai {

using provider::ErrorContext;
using provider::MappedError;

// A non-2xx vendor response → the client's error.
MappedError map_http_error(const ErrorContext& ctx, int32_t http_status, const mgw_header* headers,
                           std::size_t header_count, std::string_view body);

// `prefix` plus the vendor's own message when `doc` carries one (masked and
// truncated), e.g. for {"error": …} bodies and stream events.
std::string with_vendor_message(std::string prefix, const provider::Json& doc, std::string_view api_key);

}  // namespace mgw::openai
