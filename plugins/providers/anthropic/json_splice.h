// Editing a JSON object's text member by member, so a native body is relayed
// as it was written (numbers, key order, blocks this plugin does not know)
// with only the members the plugin must change replaced.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mgw::anthropic {

// One top-level member of an object's text: `name` is the key's text between
// its quotes (escapes as written), `value` the raw JSON value text; views
// into the scanned text, like the host's mgw_json_member.
struct RawMember {
  std::string_view name;
  std::string_view value;
};

// The top-level members of `object_text`, which the caller already parsed as
// a JSON object (the scan trusts the syntax and only finds the boundaries).
// nullopt when the text does not look like an object after all.
std::optional<std::vector<RawMember>> top_level_members(std::string_view object_text);

// Appends `"name":value` (name as key text, value as JSON text) to an object
// being written from its opening brace on, with the comma before it when
// needed.
void append_raw_member(std::string& out, std::string_view name, std::string_view value);

}  // namespace mgw::anthropic
