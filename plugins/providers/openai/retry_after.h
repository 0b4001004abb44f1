// How long the vendor asks us to wait, from its response headers.
#pragma once

#include <modelgw/plugin.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mgw::openai {

// Milliseconds to wait, or -1 when the vendor said nothing usable. Reads
// `retry-after-ms` first (OpenAI's precise hint, which its own SDKs prefer),
// then `Retry-After` as delay-seconds or an HTTP-date (relative to now_ms).
int64_t retry_after_ms(const mgw_header* headers, std::size_t count, int64_t now_ms) noexcept;

// Parses an HTTP-date in any of the three forms RFC 9110 says a recipient must
// accept (IMF-fixdate, RFC 850, asctime). Returns Unix seconds.
std::optional<int64_t> parse_http_date(std::string_view text) noexcept;

}  // namespace mgw::openai
