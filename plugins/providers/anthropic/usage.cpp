#include "usage.h"

#include <modelgw/provider/json_scan.hpp>
#include <modelgw/provider/openai_chunk.hpp>
#include <modelgw/sdk.hpp>

#include <algorithm>
#include <limits>
#include <optional>

namespace mgw::anthropic {

using namespace mgw::provider;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / 4;  // four summed never overflow

// A count from an integer member; negative counts read as 0, huge ones are
// capped. Returns false when the member is absent or not an integer.
bool read_count(const Json& usage, std::string_view key, int64_t& out) {
  const Json* v = member(usage, key);
  if (v == nullptr || !v->is_number_integer()) {
    return false;
  }
  if (v->is_number_unsigned()) {
    out = static_cast<int64_t>(std::min<uint64_t>(v->get<uint64_t>(), kMax));
  } else {
    out = std::clamp<int64_t>(v->get<int64_t>(), 0, kMax);
  }
  return true;
}

}  // namespace

void TokenCounts::merge(const Json& usage) {
  if (!usage.is_object()) {
    return;
  }
  has_input_ = read_count(usage, "input_tokens", input_) || has_input_;
  read_count(usage, "cache_creation_input_tokens", cache_creation_);
  read_count(usage, "cache_read_input_tokens", cache_read_);
  has_output_ = read_count(usage, "output_tokens", output_) || has_output_;
}

bool TokenCounts::merge_text(std::string_view usage) {
  namespace scan = json_scan;
  struct Count {
    std::string_view name;
    int64_t* into;
    std::optional<int64_t> value;
  };
  Count counts[] = {{"input_tokens", &input_, {}},
                    {"cache_creation_input_tokens", &cache_creation_, {}},
                    {"cache_read_input_tokens", &cache_read_, {}},
                    {"output_tokens", &output_, {}}};
  bool plain = true;
  const bool valid = scan::for_each_member(usage, [&](std::string_view name, std::string_view value) {
    if (name.find('\\') != std::string_view::npos) return plain = false;  // the DOM reads it unescaped
    for (Count& c : counts) {
      if (name != c.name) continue;
      if (c.value) return plain = false;  // given twice: the DOM keeps one
      c.value = scan::count_value(value);
      if (!c.value) return plain = false;  // a float, a negative, a string: merge() decides
    }
    return true;
  });
  if (!valid || !plain) return false;
  for (const Count& c : counts) {
    if (c.value) *c.into = *c.value;  // at most 18 digits: below kMax, as merge() caps
  }
  has_input_ = counts[0].value.has_value() || has_input_;
  has_output_ = counts[3].value.has_value() || has_output_;
  return true;
}

int64_t TokenCounts::prompt() const noexcept {
  return input_ + cache_creation_ + cache_read_;
}

mgw_usage reported_usage(const TokenCounts& counts, int64_t host_prompt, std::size_t generated_bytes) {
  const int64_t prompt = counts.has_prompt() ? counts.prompt() : std::clamp<int64_t>(host_prompt, 0, kMax);
  const int64_t completion =
      counts.has_completion() ? counts.completion() : estimated_completion_tokens(generated_bytes);
  if (!counts.has_prompt()) {
    return mgw::usage(prompt, completion);
  }
  return mgw::usage(prompt, completion, std::min(counts.cached(), prompt),
                    std::min(counts.cache_written(), prompt));
}

}  // namespace mgw::anthropic
