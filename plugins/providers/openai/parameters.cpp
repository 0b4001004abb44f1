#include "parameters.h"

#include <modelgw/provider_plugin.hpp>

namespace mgw::openai {

// OpenAI's own API: every parameter passes through as written. The ranges
// are OpenAI's; an OpenAI-compatible host that takes less answers 400 itself.
std::vector<mgw_param_spec> parameters() {
  using mgw::mapped_param;
  return {
      mapped_param("temperature", "temperature", 0, 2),
      mapped_param("top_p", "top_p", 0, 1),
      mapped_param("max_tokens", "max_tokens"),
      mapped_param("max_completion_tokens", "max_completion_tokens"),
      mapped_param("stop", "stop"),
      mapped_param("n", "n"),
      mapped_param("presence_penalty", "presence_penalty", -2, 2),
      mapped_param("frequency_penalty", "frequency_penalty", -2, 2),
      mapped_param("logit_bias", "logit_bias"),
      mapped_param("logprobs", "logprobs"),
      mapped_param("top_logprobs", "top_logprobs", 0, 20),
      mapped_param("seed", "seed"),
      mapped_param("response_format", "response_format"),
      mapped_param("tools", "tools"),
      mapped_param("tool_choice", "tool_choice"),
      mapped_param("parallel_tool_calls", "parallel_tool_calls"),
      mapped_param("user", "user"),
      mapped_param("metadata", "metadata"),
      mapped_param("store", "store"),
      mapped_param("reasoning_effort", "reasoning_effort"),
      mapped_param("service_tier", "service_tier"),
      mapped_param("modalities", "modalities"),
      mapped_param("audio", "audio"),
      mapped_param("prediction", "prediction"),
      mapped_param("web_search_options", "web_search_options"),
      mapped_param("functions", "functions"),
      mapped_param("function_call", "function_call"),
  };
}

}  // namespace mgw::openai
