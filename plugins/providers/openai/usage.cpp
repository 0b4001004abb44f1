#include "usage.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mgw::openai {
namespace {

// A token count from any JSON number; negative or absent counts are 0.
int64_t count_member(const Json& usage, std::string_view key, bool& present) {
  auto it = usage.find(key);
  present = it != usage.end() && it->is_number();
  if (!present) {
    return 0;
  }
  if (it->is_number_unsigned()) {
    const auto v = it->get<uint64_t>();
    return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
               ? std::numeric_limits<int64_t>::max()
               : static_cast<int64_t>(v);
  }
  if (it->is_number_integer()) {
    return std::max<int64_t>(0, it->get<int64_t>());
  }
  const double d = it->get<double>();
  // Comparing against 2^63 as a double keeps the conversion defined.
  if (!(d > 0)) {
    return 0;
  }
  if (d >= 9.2e18) {
    return std::numeric_limits<int64_t>::max();
  }
  return static_cast<int64_t>(std::llround(d));
}

int64_t saturating_add(int64_t a, int64_t b) noexcept {
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b;
}

}  // namespace

mgw_usage read_usage(const Json& usage) {
  mgw_usage u{};
  u.struct_size = sizeof u;
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

mgw_usage estimate_usage(std::size_t generated) noexcept {
  mgw_usage u{};
  u.struct_size = sizeof u;
  u.prompt_tokens = 0;
  u.completion_tokens = static_cast<int64_t>((generated + 3) / 4);
  u.total_tokens = u.completion_tokens;
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

Json usage_json(const mgw_usage& usage) {
  Json j = Json::object();
  j["prompt_tokens"] = usage.prompt_tokens;
  j["completion_tokens"] = usage.completion_tokens;
  j["total_tokens"] = usage.total_tokens;
  if (usage.cached_prompt_tokens > 0)
    j["prompt_tokens_details"] = Json{{"cached_tokens", usage.cached_prompt_tokens}};
  return j;
}

}  // namespace mgw::openai
