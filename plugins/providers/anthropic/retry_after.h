// How long Anthropic asks us to wait, from its `retry-after` header.
#pragma once

#include <modelgw/plugin.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mgw::anthropic {

// Milliseconds to wait, or -1 when the vendor said nothing usable. Reads
// `retry-after` as delay-seconds or as an HTTP-date relative to now_ms (a date
// in the past means 0). Anthropic's `anthropic-ratelimit-*-reset` headers are
// ignored: `retry-after` is the one it sends with every 429.
int64_t retry_after_ms(const mgw_header* headers, std::size_t count, int64_t now_ms) noexcept;

// Unix seconds of an HTTP-date in any form RFC 9110 §5.6.7 says a recipient
// must accept: IMF-fixdate, RFC 850 and asctime.
std::optional<int64_t> parse_http_date(std::string_view text) noexcept;

}  // namespace mgw::anthropic
