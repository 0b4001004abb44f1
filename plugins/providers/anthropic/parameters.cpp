#include "parameters.h"

#include <modelgw/provider_plugin.hpp>

namespace mgw::anthropic {

// Anthropic's Messages API. Dropped: what changes nothing a client reads back
// (OpenAI's stored-completion fields, a determinism hint Anthropic lacks).
// Refused: what would change the answer's shape or sampling if left out.
std::vector<mgw_param_spec> parameters() {
  using mgw::dropped_param;
  using mgw::mapped_param;
  using mgw::refused_param;
  return {
      mapped_param("temperature", "temperature", 0, 1),  // OpenAI's 0-2 is not rescaled
      mapped_param("top_p", "top_p", 0, 1),
      mapped_param("max_tokens", "max_tokens"),
      mapped_param("max_completion_tokens", "max_tokens"),
      mapped_param("stop", "stop_sequences"),
      mapped_param("n", "(one choice per request)", 1, 1),
      mapped_param("tools", "tools"),
      mapped_param("tool_choice", "tool_choice"),
      mapped_param("parallel_tool_calls", "tool_choice.disable_parallel_tool_use"),
      mapped_param("user", "metadata.user_id"),
      dropped_param("seed"),
      dropped_param("metadata"),
      dropped_param("store"),
      dropped_param("service_tier"),
      refused_param("response_format"),
      refused_param("presence_penalty"),
      refused_param("frequency_penalty"),
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

}  // namespace mgw::anthropic
