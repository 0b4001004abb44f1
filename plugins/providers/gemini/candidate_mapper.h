// One Gemini candidate in OpenAI's terms: what the whole-response and the
// stream paths share.
#pragma once

#include <modelgw/provider/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mgw::gemini {

using provider::Json;

// One functionCall part.
struct FunctionCall {
  std::string id;  // Gemini's own id, empty when it sent none
  std::string name;
  std::string arguments;  // args serialised; "{}" when absent
};

// What a candidate's content says, thought parts left out (they are the
// model's private reasoning, billed but not part of the answer).
struct CandidateParts {
  std::string text;  // every non-thought text part, joined
  bool has_text = false;
  std::vector<FunctionCall> calls;

  // Bytes a vendor bills as completion, for the usage estimate.
  std::size_t generated_bytes() const noexcept;
};

CandidateParts read_parts(const Json& candidate);

// The candidate's "index", or its position when Gemini left it out (proto3
// omits zero values, so index 0 is usually absent).
int64_t candidate_index(const Json& candidate, std::size_t position);

// Gemini's finishReason → OpenAI's finish_reason. STOP with function calls is
// "tool_calls"; MAX_TOKENS "length"; the safety family "content_filter";
// anything else "stop".
std::string_view finish_reason(std::string_view gemini_reason, bool has_tool_calls) noexcept;

// The id a tool call gets: Gemini's own, else "call_<candidate>_<k>".
std::string tool_call_id(const FunctionCall& call, int64_t candidate, int64_t k);

// {"id","type":"function","function":{"name","arguments"}}; with `stream_index`
// >= 0 an "index" member leads, as chat.completion.chunk deltas carry.
Json tool_call_json(const FunctionCall& call, std::string id, int64_t stream_index = -1);

}  // namespace mgw::gemini
