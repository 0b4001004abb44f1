#include "catalog/parameters.h"

#include <algorithm>
#include <array>

namespace modelgw::catalog {
namespace {

constexpr std::array<std::string_view, 4> kCore = {"model", "messages", "stream", "stream_options"};

// OpenAI chat completion request parameters (besides the core ones).
constexpr std::array<std::string_view, 27> kKnown = {"temperature",
                                                     "top_p",
                                                     "max_tokens",
                                                     "max_completion_tokens",
                                                     "stop",
                                                     "n",
                                                     "presence_penalty",
                                                     "frequency_penalty",
                                                     "logit_bias",
                                                     "logprobs",
                                                     "top_logprobs",
                                                     "seed",
                                                     "response_format",
                                                     "tools",
                                                     "tool_choice",
                                                     "parallel_tool_calls",
                                                     "user",
                                                     "metadata",
                                                     "store",
                                                     "reasoning_effort",
                                                     "service_tier",
                                                     "modalities",
                                                     "audio",
                                                     "prediction",
                                                     "web_search_options",
                                                     "functions",
                                                     "function_call"};

constexpr std::array<std::string_view, 17> kDefault = {"temperature",
                                                       "top_p",
                                                       "max_tokens",
                                                       "max_completion_tokens",
                                                       "stop",
                                                       "n",
                                                       "presence_penalty",
                                                       "frequency_penalty",
                                                       "logit_bias",
                                                       "logprobs",
                                                       "top_logprobs",
                                                       "seed",
                                                       "response_format",
                                                       "tools",
                                                       "tool_choice",
                                                       "parallel_tool_calls",
                                                       "user"};

}  // namespace

bool is_core_member(std::string_view name) {
  return std::find(kCore.begin(), kCore.end(), name) != kCore.end();
}

std::span<const std::string_view> known_parameters() {
  return kKnown;
}

bool is_known_parameter(std::string_view name) {
  return std::find(kKnown.begin(), kKnown.end(), name) != kKnown.end();
}

std::vector<std::string> default_supported_parameters() {
  return {kDefault.begin(), kDefault.end()};
}

}  // namespace modelgw::catalog
