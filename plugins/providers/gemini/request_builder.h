// Client chat request → Gemini generateContent / streamGenerateContent
// request; an embeddings call → batchEmbedContents, a count_tokens call →
// countTokens (ABI 1.11).
#pragma once

#include "provider_config.h"

#include <modelgw/plugin.h>

#include <string>
#include <string_view>

namespace mgw::gemini {

// The path for the call's model: /models/<model>:generateContent, or
// /models/<model>:streamGenerateContent?alt=sse for streams. The model name
// is percent-encoded; a leading "models/" (Google's resource name form) is
// dropped, since the path already says it.
std::string request_path(std::string_view upstream_model, bool stream);

// "/models/<model>:<method>", the model as request_path writes it, e.g. for
// the native operations' batchEmbedContents and countTokens (ABI 1.11).
std::string model_method_path(std::string_view upstream_model, std::string_view method);

// Builds the POST: path, headers and the translated JSON body. Emits through
// `out`; refuses through `error` (400 invalid_parameter naming the field) and
// returns MGW_INVALID_ARGUMENT when the body cannot go to Gemini.
mgw_status build_request(const ProviderConfig& config, const mgw_call_context& call,
                         std::string_view client_body, const mgw_request_sink& out,
                         const mgw_response_sink* error);

}  // namespace mgw::gemini
