// JSON text for log lines, written straight into the line being built: no
// DOM, no second pass. Every line is one JSON object whatever a value holds:
// quotes, backslashes and control characters are escaped, and bytes that are
// not UTF-8 become U+FFFD (as nlohmann's error_handler_t::replace does).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace modelgw::logging {

// Appends `s` as a quoted JSON string.
void append_json_string(std::string& out, std::string_view s);

// Appends `,"name":` then the value; `name` is a literal the caller knows
// needs no escaping.
void append_json_member(std::string& out, std::string_view name, std::string_view value);
void append_json_member(std::string& out, std::string_view name, std::int64_t value);
void append_json_member(std::string& out, std::string_view name, bool value);

}  // namespace modelgw::logging
