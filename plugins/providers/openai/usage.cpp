#include "usage.h"

#include <modelgw/provider/openai_chunk.hpp>
#include <modelgw/sdk.hpp>

#include <algorithm>

namespace mgw::openai {

using namespace mgw::provider;

namespace {

// A token count from any JSON number; negative or absent counts are 0.
int64_t count_member(const Json& usage, std::string_view key, bool& present) {
  auto it = usage.find(key);
  present = it != usage.end() && it->is_number();
  return present ? count_value(*it).value_or(0) : 0;
}

}  // namespace

mgw_usage read_usage(const Json& usage) {
  mgw_usage u = mgw::usage(0, 0);
  if (!usage.is_object()) {
    return u;
  }
  bool unused = false;
  bool has_total = false;
  u.prompt_tokens = count_member(usage, "prompt_tokens", unused);
  u.completion_tokens = count_member(usage, "completion_tokens", unused);
  u.total_tokens = count_member(usage, "total_tokens", has_total);
  if (!has_total) {
    u.total_tokens = saturating_add(u.prompt_tokens, u.completion_tokens);
  }
  // prompt_tokens_details.cached_tokens: the prompt cache hit, billed at the cached-input price.
  if (auto details = usage.find("prompt_tokens_details"); details != usage.end() && details->is_object()) {
    u.cached_prompt_tokens = std::min(count_member(*details, "cached_tokens", unused), u.prompt_tokens);
  }
  return u;
}

std::size_t generated_bytes(const Json& message) {
  if (!message.is_object()) {
    return 0;
  }
  std::size_t bytes = 0;
  if (auto content = message.find("content"); content != message.end()) {
    if (content->is_string()) {
      bytes += content->get_ref<const std::string&>().size();
    } else if (content->is_array()) {
      for (const auto& part : *content) {
        bytes += string_member(part, "text").size();
      }
    }
  }
  bytes += string_member(message, "refusal").size();
  if (auto calls = message.find("tool_calls"); calls != message.end() && calls->is_array()) {
    for (const auto& call : *calls) {
      if (auto fn = call.find("function"); fn != call.end()) {
        bytes += string_member(*fn, "arguments").size();
      }
    }
  }
  return bytes;
}

std::size_t choices_generated_bytes(const Json& doc, std::string_view member) {
  auto choices = doc.find("choices");
  if (choices == doc.end() || !choices->is_array()) {
    return 0;
  }
  std::size_t bytes = 0;
  for (const auto& choice : *choices) {
    if (!choice.is_object()) {
      continue;
    }
    if (auto m = choice.find(member); m != choice.end()) {
      bytes += generated_bytes(*m);
    }
  }
  return bytes;
}

mgw_usage read_responses_usage(const Json& usage) {
  mgw_usage u = mgw::usage(0, 0);
  if (!usage.is_object()) {
    return u;
  }
  bool unused = false;
  bool has_total = false;
  u.prompt_tokens = count_member(usage, "input_tokens", unused);
  u.completion_tokens = count_member(usage, "output_tokens", unused);
  u.total_tokens = count_member(usage, "total_tokens", has_total);
  if (!has_total) {
    u.total_tokens = saturating_add(u.prompt_tokens, u.completion_tokens);
  }
  if (auto details = usage.find("input_tokens_details"); details != usage.end() && details->is_object()) {
    u.cached_prompt_tokens = std::min(count_member(*details, "cached_tokens", unused), u.prompt_tokens);
  }
  return u;
}

Json responses_usage_json(const mgw_usage& usage) {
  Json j = Json::object();
  j["input_tokens"] = usage.prompt_tokens;
  j["input_tokens_details"] = Json{{"cached_tokens", usage.cached_prompt_tokens}};
  j["output_tokens"] = usage.completion_tokens;
  j["output_tokens_details"] = Json{{"reasoning_tokens", 0}};
  j["total_tokens"] = usage.total_tokens;
  return j;
}

std::size_t output_generated_bytes(const Json& response) {
  const Json* output = member(response, "output");
  if (output == nullptr || !output->is_array()) {
    return 0;
  }
  std::size_t bytes = 0;
  for (const auto& item : *output) {
    bytes += string_member(item, "arguments").size();
    if (const Json* content = member(item, "content"); content != nullptr && content->is_array()) {
      for (const auto& part : *content) {
        bytes += string_member(part, "text").size() + string_member(part, "refusal").size();
      }
    }
  }
  return bytes;
}

}  // namespace mgw::openai
