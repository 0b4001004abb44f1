// The body of an embeddings call (ABI 1.11, operation "embeddings") for
// Gemini's models/{model}:batchEmbedContents: one EmbedContentRequest per
// input, its text spliced as the client wrote it.
#pragma once

#include <modelgw/plugin.h>

#include <optional>
#include <string>
#include <string_view>

namespace mgw::gemini {

// {"requests":[{"model":"models/<model>","content":{"parts":[{"text":<input>}]}
// [,"outputDimensionality":<dimensions>]}, ...]} from the client's "input"
// (strings only: Gemini embeds text, so token arrays are refused naming
// "input") and "dimensions". Uses the host's member index when there is
// one, else parses. nullopt, after callback_error (400 invalid_parameter) on
// `error`, when the request cannot go to Gemini.
std::optional<std::string> embeddings_body(const mgw_call_context& call, std::string_view client_body,
                                           const mgw_response_sink* error);

// "models/<model>" for a body's "model" member, as JSON text.
std::string model_resource_json(std::string_view upstream_model);

}  // namespace mgw::gemini
