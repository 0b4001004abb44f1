// The vendor bodies of the native operations (ABI 1.11): "messages" (the
// client's Messages request with "model" set to the upstream model) and
// "count_tokens" (the same, cut to what Anthropic's counting endpoint takes).
#pragma once

#include <modelgw/plugin.h>

#include <optional>
#include <string>
#include <string_view>

namespace mgw::anthropic {

// The paths, appended to the host's base_url (…/v1).
inline constexpr std::string_view kMessagesPath = "/messages";
inline constexpr std::string_view kCountTokensPath = "/messages/count_tokens";

// True for the members POST /v1/messages/count_tokens accepts besides
// "model": messages, system, tools, tool_choice, thinking, mcp_servers. It
// refuses every other one (max_tokens, stream, temperature, ...) as an extra
// input.
bool counted_member(std::string_view name);

// `client_body` with "model" replaced by call.upstream_model (added when the
// body has none) and every other member as written: cache_control, thinking
// blocks with their signatures, documents, tool_use and tool_result blocks
// pass untouched. Splices the host's member index when there is one, else
// parses. nullopt, after callback_error on `error`, when the body is not a
// JSON object.
std::optional<std::string> messages_body(const mgw_call_context& call, std::string_view client_body,
                                         const mgw_response_sink* error);

// The count_tokens body of a Messages request: "model" = call.upstream_model
// and only the counted members, each as written. Same splice and fallback as
// messages_body.
std::optional<std::string> count_tokens_body(const mgw_call_context& call, std::string_view client_body,
                                             const mgw_response_sink* error);

}  // namespace mgw::anthropic
