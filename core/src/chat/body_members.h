// The index of a request body's top-level members that the host hands a
// provider plugin (ABI 1.1, mgw_call_context.members), so the plugin can
// splice the body instead of parsing it again. Built by a scan of the text
// the host has already parsed and validated: no allocation per member but
// the index itself.
#pragma once

#include <modelgw/plugin.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::chat {

// The members of `object` (a valid JSON object's text) in the order written;
// nullopt when a key is written with escapes or appears twice (the plugin
// then parses the body itself, so its reading can never differ from the
// host's parse).
std::optional<std::vector<mgw_json_member>> index_members(std::string_view object);

// The object of `members` without the members named in `drop`, each value's
// text as written (for parameters dropped before a model that does not take
// them: no parse, no re-serialisation).
std::string without_members(const std::vector<mgw_json_member>& members,
                            const std::vector<std::string>& drop);

}  // namespace modelgw::chat
