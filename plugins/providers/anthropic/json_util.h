// JSON helpers shared by the request, response and stream paths.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace mgw::anthropic {

// ordered_json keeps members in the order we write them, so requests and
// responses read in a stable, documented order.
using Json = nlohmann::ordered_json;

// Deepest nesting accepted from the vendor. nlohmann parses and frees without
// recursion but serialises recursively, and a tool_use `input` is serialised
// into the client's arguments: a hostile depth must not reach dump().
inline constexpr std::size_t kMaxVendorDepth = 512;

// Parses vendor bytes. Returns a discarded value when they are not JSON or nest
// deeper than kMaxVendorDepth. Never throws a parse error.
Json parse_vendor_json(std::string_view text);

// Parses the client's body (the host promises at most 64 levels). Returns a
// discarded value when it is not JSON.
Json parse_client_json(std::string_view text);

// Serialises. Invalid UTF-8 (which the parser never produces, but host strings
// might hold) is replaced rather than thrown.
std::string dump(const Json& j);

// The string at `j[key]`, or an empty view when `j` is not an object or the
// member is absent or not a string.
std::string_view string_member(const Json& j, std::string_view key);

// The member `key` of `j`, or nullptr when `j` is not an object, the member is
// absent, or it is null (JSON null means "not sent" everywhere we read).
const Json* member(const Json& j, std::string_view key);

}  // namespace mgw::anthropic
