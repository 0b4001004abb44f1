#include "answer_splice.h"

#include <modelgw/provider/json_scan.hpp>
#include <modelgw/provider/openai_chunk.hpp>
#include <modelgw/sdk.hpp>

#include <algorithm>
#include <cstdint>

namespace mgw::openai {
namespace {

namespace scan = mgw::provider::json_scan;

// A count member's value: absent or a plain non-negative integer; anything
// else (a float, a negative, a string) leaves the answer to the DOM path.
struct Count {
  int64_t value = 0;
  bool present = false;
  bool plain = true;
  bool repeated = false;
  void read(std::string_view text) {
    repeated = repeated || present;
    present = true;
    const auto n = scan::count_value(text);
    plain = plain && n.has_value();
    value = n.value_or(0);
  }
};

struct UsageCounts {
  Count prompt, completion, total, cached;
  bool plain() const {
    for (const Count* c : {&prompt, &completion, &total, &cached}) {
      if (!c->plain || c->repeated) return false;
    }
    return true;
  }
};

// The usage member names of a shape.
struct UsageNames {
  std::string_view prompt, completion, details;
};

constexpr UsageNames kChatUsage{"prompt_tokens", "completion_tokens", "prompt_tokens_details"};
constexpr UsageNames kResponsesUsage{"input_tokens", "output_tokens", "input_tokens_details"};

bool read_usage_counts(std::string_view usage, const UsageNames& names, UsageCounts& counts) {
  bool ok = true;
  const bool valid = scan::for_each_member(usage, [&](std::string_view name, std::string_view value) {
    if (name.find('\\') != std::string_view::npos) return ok = false;
    if (name == names.prompt) counts.prompt.read(value);
    if (name == names.completion) counts.completion.read(value);
    if (name == "total_tokens") counts.total.read(value);
    if (name == names.details) {
      if (value.front() != '{') return true;  // not an object: no cached count, as the DOM path reads it
      const bool details_ok = scan::for_each_member(value, [&](std::string_view n, std::string_view v) {
        if (n.find('\\') != std::string_view::npos) return false;
        if (n == "cached_tokens") counts.cached.read(v);
        return true;
      });
      if (!details_ok) return ok = false;
    }
    return true;
  });
  return valid && ok && counts.plain();
}

}  // namespace

std::optional<SplicedAnswer> splice_answer(std::string_view body, std::string_view alias_json,
                                           AnswerShape shape) {
  const bool chat = shape == AnswerShape::chat_completion;
  std::string_view model, usage;
  int models = 0, choices = 0, usages = 0, objects = 0, statuses = 0;
  bool ordinary = true;
  const bool valid = scan::for_each_member(body, [&](std::string_view name, std::string_view value) {
    if (name.find('\\') != std::string_view::npos || name == "request_id") return ordinary = false;
    if (name == "model") {
      model = value;
      ++models;
    } else if (name == "usage") {
      if (value.front() != '{') return ordinary = false;
      usage = value;
      ++usages;
    } else if (chat && name == "error") {
      if (value != "null") return ordinary = false;
    } else if (chat && name == "choices") {
      if (value.front() != '[') return ordinary = false;
      ++choices;
    } else if (!chat && name == "object") {
      if (value != "\"response\"") return ordinary = false;
      ++objects;
    } else if (!chat && name == "status") {
      // A plain string other than "failed" (an escaped one is left to the DOM path).
      const auto text = scan::plain_string(value);
      if (!text || *text == "failed") return ordinary = false;
      ++statuses;
    }
    return true;
  });
  if (!valid || !ordinary || models != 1 || usages != 1) return std::nullopt;
  if (chat ? choices != 1 : (objects != 1 || statuses > 1)) return std::nullopt;
  UsageCounts counts;
  if (!read_usage_counts(usage, chat ? kChatUsage : kResponsesUsage, counts)) return std::nullopt;

  SplicedAnswer answer;
  answer.usage = mgw::usage(counts.prompt.value, counts.completion.value);
  answer.usage.total_tokens = counts.total.present
                                  ? counts.total.value
                                  : provider::saturating_add(counts.prompt.value, counts.completion.value);
  answer.usage.cached_prompt_tokens = std::min(counts.cached.value, counts.prompt.value);
  // The views point into `body`: the answer is its text around the model's value.
  const std::size_t first = scan::skip_ws(body, 0);
  std::size_t last = body.size();
  while (last > first && scan::is_ws(body[last - 1])) --last;
  const std::size_t model_at = static_cast<std::size_t>(model.data() - body.data());
  answer.body.reserve(last - first - model.size() + alias_json.size());
  answer.body.append(body.substr(first, model_at - first));
  answer.body.append(alias_json);
  answer.body.append(body.substr(model_at + model.size(), last - model_at - model.size()));
  return answer;
}

}  // namespace mgw::openai
