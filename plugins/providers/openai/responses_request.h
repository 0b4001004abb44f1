// The vendor body of a Responses call (ABI 1.10, operation "responses") and
// of an embeddings call (ABI 1.11, "embeddings"): the client's request with
// "model" set to the upstream model.
#pragma once

#include <modelgw/plugin.h>

#include <optional>
#include <string>
#include <string_view>

namespace mgw::openai {

// The path, appended to the host's base_url.
inline constexpr std::string_view kResponsesPath = "/responses";
inline constexpr std::string_view kEmbeddingsPath = "/embeddings";

// `client_body` with "model" replaced by call.upstream_model (added when the
// body has none) and nothing else changed: the host already made it what
// goes upstream (the whole conversation in "input", "store": false). Splices
// the host's member index when there is one, else parses. nullopt, after
// callback_error on `error`, when the body is not a JSON object.
std::optional<std::string> responses_body(const mgw_call_context& call, std::string_view client_body,
                                          const mgw_response_sink* error);

}  // namespace mgw::openai
