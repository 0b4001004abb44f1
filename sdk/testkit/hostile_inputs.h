// Inputs no plugin should trust: text that is empty, huge, not UTF-8, not
// JSON or JSON of the wrong shape, and values of every JSON type but the
// one a field takes.
#pragma once

#include "json_compare.h"

#include <cstddef>
#include <string>
#include <vector>

namespace mgw::testkit {

inline constexpr std::size_t kHuge = std::size_t{1} << 20;  // 1 MiB

struct HostileText {
  std::string label;
  std::string bytes;
};

// Text that is not one JSON object: empty, blank, truncated, other JSON
// types, trailing garbage, invalid UTF-8, NUL bytes, 1 MiB of junk, 1 MiB
// of unclosed brackets.
std::vector<HostileText> not_a_json_object();

// JSON values that are not of any type in `allowed` (names: "string",
// "number", "integer", "boolean", "array", "object", "null"); a "number"
// allows integers too.
std::vector<Json> values_not_of(const std::vector<std::string>& allowed);

// A JSON value nested `depth` arrays deep.
std::string nested_arrays(std::size_t depth);

// The JSON type name of a value, as values_not_of names it.
std::string type_of(const Json& j);

}  // namespace mgw::testkit
