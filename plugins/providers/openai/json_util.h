// JSON helpers shared by the request, response and stream paths.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace mgw::openai {

// ordered_json keeps members in the order the client or vendor wrote them, so
// what goes out looks like what came in (and is no slower for objects this small).
using Json = nlohmann::ordered_json;

// Deepest nesting accepted from the vendor. nlohmann parses and frees without
// recursion but dumps recursively, so a hostile body must not reach dump().
inline constexpr std::size_t kMaxVendorDepth = 512;

// True when `text` nests arrays/objects at most `max_depth` deep. Scans bytes
// only (no parse), and returns at once for inputs too short to be deeper.
bool nesting_within(std::string_view text, std::size_t max_depth) noexcept;

// Parses vendor bytes. Returns a discarded value when they are not JSON or nest
// deeper than kMaxVendorDepth. Never throws a parse error.
Json parse_vendor_json(std::string_view text);

// Serialises once. Invalid UTF-8 (which the parser never produces, but host
// strings might hold) is replaced rather than thrown.
std::string dump(const Json& j);

// The string at `j[key]`, or an empty view when absent or not a string.
std::string_view string_member(const Json& j, std::string_view key);

}  // namespace mgw::openai
