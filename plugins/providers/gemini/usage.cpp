#include "usage.h"

#include <modelgw/provider/openai_chunk.hpp>
#include <modelgw/sdk.hpp>

#include <algorithm>

namespace mgw::gemini {

using namespace mgw::provider;

namespace {

// The count at `key`, or -1 when absent or not a number.
int64_t count_member(const Json& obj, std::string_view key) {
  const Json* m = member(obj, key);
  return m == nullptr ? -1 : count_value(*m).value_or(-1);
}

int64_t or_zero(int64_t v) noexcept {
  return v < 0 ? 0 : v;
}

}  // namespace

Usage read_usage(const Json& usage_metadata) {
  Usage u;
  u.counts = mgw::usage(0, 0);
  if (!usage_metadata.is_object()) {
    return u;
  }
  const int64_t prompt = or_zero(count_member(usage_metadata, "promptTokenCount"));
  const int64_t candidates = or_zero(count_member(usage_metadata, "candidatesTokenCount"));
  const int64_t thoughts = count_member(usage_metadata, "thoughtsTokenCount");
  const int64_t total = count_member(usage_metadata, "totalTokenCount");
  u.counts.prompt_tokens = prompt;
  u.counts.completion_tokens = saturating_add(candidates, or_zero(thoughts));
  u.counts.total_tokens = total >= 0 ? total : saturating_add(prompt, u.counts.completion_tokens);
  u.cached_tokens = count_member(usage_metadata, "cachedContentTokenCount");
  u.counts.cached_prompt_tokens = std::clamp<int64_t>(u.cached_tokens, 0, prompt);
  u.reasoning_tokens = thoughts;
  return u;
}

Usage estimate_usage(int64_t prompt_tokens, std::size_t generated_bytes) noexcept {
  Usage u;
  u.counts = estimated_usage(prompt_tokens, generated_bytes);
  return u;
}

Json usage_json(const Usage& usage) {
  // The SDK's object, with the details as Gemini reported them (a cache read
  // of 0 included).
  Json j = provider::usage_json(usage.counts);
  if (usage.cached_tokens >= 0) {
    j["prompt_tokens_details"] = Json{{"cached_tokens", usage.cached_tokens}};
  }
  if (usage.reasoning_tokens >= 0) {
    j["completion_tokens_details"] = Json{{"reasoning_tokens", usage.reasoning_tokens}};
  }
  return j;
}

}  // namespace mgw::gemini
