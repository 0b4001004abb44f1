// The top-level members of a door's native answer (a plugin's body, which is
// not known to be valid JSON), so the door can rewrite it by splicing: one
// validating scan allocates nothing per value, where a parse and a dump would
// build and walk the whole tree.
#pragma once

#include <modelgw/plugin.h>

#include <optional>
#include <string_view>
#include <vector>

namespace modelgw::chat {

// The members of `text`, which is not known to be valid JSON (a plugin's
// answer), checked and indexed in one pass (RFC 8259: json_scan.hpp).
// `object`: it is one JSON object, whitespace around it aside; one nested
// deeper than the scan reads (128) is checked by a parser instead. nullopt
// when it is not an object, was checked by the parser, or has a key written
// with escapes or given twice (as index_members): read it parsed.
std::optional<std::vector<mgw_json_member>> index_checked_object(std::string_view text, bool& object);

}  // namespace modelgw::chat
