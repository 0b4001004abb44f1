// The index of a request body's top-level members that the host hands a
// provider plugin (ABI 1.1, mgw_call_context.members), so the plugin can
// splice the body instead of parsing it again. Built by a scan of the text
// the host has already parsed and validated: no allocation per member but
// the index itself.
#pragma once

#include <modelgw/plugin.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace modelgw::chat {

// The members of `object` (a valid JSON object's text) in the order written;
// nullopt when a key is written with escapes or appears twice (the plugin
// then parses the body itself, so its reading can never differ from the
// host's parse).
std::optional<std::vector<mgw_json_member>> index_members(std::string_view object);

// Whether `text` starts, after JSON whitespace, with '{' (no byte order mark
// or anything else that a reader may refuse where a parser skipped it).
bool opens_object(std::string_view text);

// Whether no two of `members` share a name.
bool distinct_names(const std::vector<mgw_json_member>& members);

// The object of `members` without the members named in `drop`, each value's
// text as written (for parameters dropped before a model that does not take
// them: no parse, no re-serialisation).
std::string without_members(const std::vector<mgw_json_member>& members,
                            const std::vector<std::string>& drop);

// A path from the root of a JSON document to one value: member names and
// array indexes.
using JsonPath = std::vector<std::variant<std::string, std::size_t>>;

// Where the value at `path` is written in `text` (a valid JSON document), as
// [begin, end); nullopt when the path does not exist or crosses an object
// with a key written with escapes or given twice (where a reader may not
// agree which member is meant).
std::optional<std::pair<std::size_t, std::size_t>> locate_value(std::string_view text, const JsonPath& path);

// The [begin, end) of each element of the array whose text starts at `at`
// (its '[') in `text`, a valid JSON document; nullopt when no array starts
// there. One pass, nothing parsed (an embedding's numbers stay text).
std::optional<std::vector<std::pair<std::size_t, std::size_t>>> array_elements(std::string_view text,
                                                                               std::size_t at);

// `text` with the string value at each path replaced by its new content
// (JSON-escaped here); the rest byte for byte as written. nullopt when a path
// cannot be located or does not end at a string (the caller then serialises
// the parsed document instead).
std::optional<std::string> replace_strings(std::string_view text,
                                           const std::vector<std::pair<JsonPath, std::string>>& replacements);

}  // namespace modelgw::chat

namespace modelgw::chat {

// `object` (a valid JSON object's text) with the top-level member `name` set
// to `value_json`: its value replaced where it is written, or the member
// added first when absent. nullopt when the member cannot be located safely
// (an escaped or repeated key): the caller serialises the parsed document.
std::optional<std::string> with_member(std::string_view object, std::string_view name,
                                       std::string_view value_json);

// `object` with `name: value_json` added as its first member, for a member
// the caller knows is absent (its parsed document has no such key): no
// index of the members is needed. nullopt when `object` has no '{'.
std::optional<std::string> with_new_member(std::string_view object, std::string_view name,
                                           std::string_view value_json);

}  // namespace modelgw::chat
