// OpenAI function calling → Anthropic tool use.
#pragma once

#include <modelgw/provider/json.hpp>

#include <optional>
#include <string_view>

namespace mgw::anthropic {

using provider::Json;

// An assistant message's `tool_calls` → tool_use blocks
// {"type":"tool_use","id","name","input"}, `input` being the parsed
// `function.arguments`. `path` is the message's, e.g. "messages[3]". Throws
// Rejection naming e.g. messages[3].tool_calls[0].function.arguments.
Json tool_use_blocks(const Json& tool_calls, std::string_view path);

// The request's `tools` → [{"name","description","input_schema"}], or nullopt
// when it sent none (absent, null or empty).
std::optional<Json> tools(const Json& request);

// The request's `tool_choice` and `parallel_tool_calls` → Anthropic's
// `tool_choice`, or nullopt when there is nothing to say. `has_tools` tells
// whether tools are sent: disabling parallel calls means nothing without.
std::optional<Json> tool_choice(const Json& request, bool has_tools);

}  // namespace mgw::anthropic
