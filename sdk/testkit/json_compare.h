// JSON as the runner reads and compares it: objects compare member by member
// whatever their order, numbers by value (1 equals 1.0).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace mgw::testkit {

using Json = nlohmann::json;

// Deepest nesting the runner parses from a plugin's output; deeper text is
// reported rather than parsed (printing a deeper document would recurse).
inline constexpr int kMaxJsonDepth = 256;

// Parses `text`; nullopt and `why` when it is not JSON or nests too deep.
std::optional<Json> parse_json(std::string_view text, std::string* why = nullptr);

// Empty when equal; otherwise the differences as a short JSON Patch.
std::string json_difference(const Json& expected, const Json& actual);

// A document shortened for a report.
std::string short_dump(const Json& j, std::size_t max = 300);

}  // namespace mgw::testkit
