// OpenAI's sampling, output and tool fields → Gemini's generationConfig,
// tools and toolConfig.
#pragma once

#include <modelgw/provider/json.hpp>

#include <cstdint>

namespace mgw::gemini {

using provider::Json;

// generationConfig from temperature, top_p, max_completion_tokens /
// max_tokens (else `default_max_tokens` when > 0), stop, n, seed,
// presence_penalty, frequency_penalty and response_format. Null when none
// applies. Throws InvalidRequest for a value of the wrong type.
Json generation_config(const Json& request, int64_t default_max_tokens);

// [{functionDeclarations: [...]}] from "tools", or null when there are none.
Json tools(const Json& request);

// {functionCallingConfig: {mode[, allowedFunctionNames]}} from "tool_choice",
// or null when the client sent none.
Json tool_config(const Json& request);

}  // namespace mgw::gemini
