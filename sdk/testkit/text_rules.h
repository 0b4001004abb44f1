// Byte-level rules the ABI and HTTP put on what a plugin emits.
#pragma once

#include <string>
#include <string_view>

namespace mgw::testkit {

// True when `s` is well-formed UTF-8 (no overlong forms, surrogates or
// code points past U+10FFFF).
bool valid_utf8(std::string_view s);

// True when `s` is an RFC 9110 token (a method or a header name).
bool http_token(std::string_view s);

// True when `s` holds CR, LF or NUL: bytes that would split or end a header.
bool has_line_break_or_nul(std::string_view s);

// `s` cut to `max` bytes with a marker, and bytes outside printable ASCII
// written as \xNN, for a one-line report.
std::string printable(std::string_view s, std::size_t max = 160);

}  // namespace mgw::testkit
