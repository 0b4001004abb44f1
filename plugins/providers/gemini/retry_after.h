// How long the vendor asks us to wait: the Retry-After header, or the
// google.rpc.RetryInfo detail Gemini puts in its 429 bodies.
#pragma once

#include <modelgw/plugin.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mgw::gemini {

// Milliseconds from a `Retry-After` header given as delay-seconds or as an
// HTTP-date (relative to now_ms; a past date is 0), or -1 when absent or
// unreadable.
int64_t retry_after_header_ms(const mgw_header* headers, std::size_t count, int64_t now_ms) noexcept;

// A google.protobuf.Duration in its JSON form ("37s", "0.339s", "1.5s"),
// rounded up to whole milliseconds (waiting too little fails again).
std::optional<int64_t> parse_duration_ms(std::string_view text) noexcept;

// Parses an HTTP-date in any of the three forms RFC 9110 says a recipient must
// accept (IMF-fixdate, RFC 850, asctime). Returns Unix seconds.
std::optional<int64_t> parse_http_date(std::string_view text) noexcept;

}  // namespace mgw::gemini
