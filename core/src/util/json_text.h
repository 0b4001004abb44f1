// JSON text written straight into the text being built (log lines, the
// answers kept for idempotency keys, request digests): no DOM, no second
// pass. Quotes, backslashes and control characters are escaped as
// nlohmann's dump() escapes them, so valid UTF-8 gives the same text; a byte
// that is not UTF-8 becomes U+FFFD (nlohmann's error_handler_t::replace does
// that per sequence, this per byte: both valid JSON).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace modelgw::util {

// Appends `s` as a quoted JSON string.
void append_json_string(std::string& out, std::string_view s);

// Appends `,"name":` then the value; `name` is a literal the caller knows
// needs no escaping.
void append_json_member(std::string& out, std::string_view name, std::string_view value);
void append_json_member(std::string& out, std::string_view name, std::int64_t value);
void append_json_member(std::string& out, std::string_view name, bool value);

}  // namespace modelgw::util
