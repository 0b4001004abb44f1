// JSON helpers shared by the request, response and stream paths.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mgw::gemini {

// ordered_json keeps members in the order they were written, so what goes out
// reads like what came in (and is no slower for objects this small).
using Json = nlohmann::ordered_json;

// Deepest nesting accepted from text the host did not check: vendor bodies,
// and JSON the client wrapped in a string (tool-call arguments, tool results).
// nlohmann parses and frees without recursion but dumps recursively, so a
// hostile document must not reach dump().
inline constexpr std::size_t kMaxDepth = 512;

// True when `text` nests arrays/objects at most `max_depth` deep. Scans bytes
// only (no parse), and returns at once for inputs too short to be deeper.
bool nesting_within(std::string_view text, std::size_t max_depth) noexcept;

// Parses unchecked text. Returns a discarded value when it is not JSON or
// nests deeper than kMaxDepth. Never throws a parse error.
Json parse_bounded(std::string_view text);

// Serialises once. Invalid UTF-8 (which the parser never produces, but host
// strings might hold) is replaced rather than thrown.
std::string dump(const Json& j);

// The string at `j[key]`, or an empty view when absent or not a string.
std::string_view string_member(const Json& j, std::string_view key);

// The member `key` of object `j`, or nullptr when `j` is not an object or has
// no such member. A JSON null member reads as absent too: for OpenAI's
// optional fields, null means "not set".
const Json* member(const Json& j, std::string_view key);

// A non-negative integer from any JSON number (vendors write token counts as
// integers, but a float must not make the gateway fail). Negative → 0,
// beyond int64 → INT64_MAX. nullopt when `j` is not a number.
std::optional<int64_t> count_value(const Json& j);

}  // namespace mgw::gemini
