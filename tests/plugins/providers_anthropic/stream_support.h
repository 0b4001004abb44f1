// Shared helpers of the stream tests: run a transcript in every split and
// compare, read the text and tool calls back out of the chunks.
#pragma once

#include "plugin_harness.h"

#include <optional>
#include <string>
#include <vector>

namespace anthropic_test {

// What a stream produced, in a form two runs can be compared by.
struct Outcome {
  std::vector<std::string> events;
  std::vector<std::string> chunks;
  std::optional<mgw_usage> usage;
  std::optional<mgw::testing::RecordedError> error;

  std::vector<Json> parsed() const;
};

// Feeds `pieces` to a fresh stream of a default provider, then ends it.
Outcome stream(const std::vector<std::string_view>& pieces, const CallContext& call = stream_call());

// Feeds the transcript whole, then byte by byte, then cut in two at every
// byte boundary, then in 30 random splits; every run must give the very same
// output as the whole one, which is returned.
Outcome stream_every_way(const std::string& transcript, const CallContext& call = stream_call());

// The concatenated delta.content of all chunks.
std::string content_of(const std::vector<Json>& chunks);

// The concatenated delta.tool_calls[].function.arguments of tool `index`.
std::string arguments_of(const std::vector<Json>& chunks, int index);

// The transcript without its `event:` lines, as a relay that drops them sends it.
std::string without_event_names(const std::string& transcript);

}  // namespace anthropic_test
