#include "parameters.h"

#include <modelgw/provider_plugin.hpp>

namespace mgw::gemini {

// Gemini's generateContent. Dropped: what changes nothing a client reads back.
// Refused: what would change the answer's shape or sampling if left out.
std::vector<mgw_param_spec> parameters() {
  using mgw::dropped_param;
  using mgw::mapped_param;
  using mgw::refused_param;
  return {
      mapped_param("temperature", "generationConfig.temperature", 0, 2),
      mapped_param("top_p", "generationConfig.topP", 0, 1),
      mapped_param("max_tokens", "generationConfig.maxOutputTokens"),
      mapped_param("max_completion_tokens", "generationConfig.maxOutputTokens"),
      mapped_param("stop", "generationConfig.stopSequences"),
      mapped_param("n", "generationConfig.candidateCount"),
      mapped_param("seed", "generationConfig.seed"),
      mapped_param("presence_penalty", "generationConfig.presencePenalty"),
      mapped_param("frequency_penalty", "generationConfig.frequencyPenalty"),
      mapped_param("response_format", "generationConfig.responseMimeType/responseSchema"),
      mapped_param("tools", "tools.functionDeclarations"),
      mapped_param("tool_choice", "toolConfig.functionCallingConfig"),
      dropped_param("user"),
      dropped_param("parallel_tool_calls"),
      dropped_param("metadata"),
      dropped_param("store"),
      dropped_param("service_tier"),
      refused_param("logit_bias"),
      refused_param("logprobs"),
      refused_param("top_logprobs"),
      refused_param("reasoning_effort"),
      refused_param("modalities"),
      refused_param("audio"),
      refused_param("prediction"),
      refused_param("web_search_options"),
      refused_param("functions"),
      refused_param("function_call"),
  };
}

}  // namespace mgw::gemini
