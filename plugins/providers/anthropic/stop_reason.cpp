#include "stop_reason.h"

namespace mgw::anthropic {

std::string_view finish_reason(std::string_view stop_reason) noexcept {
  if (stop_reason == "max_tokens") {
    return "length";
  }
  if (stop_reason == "tool_use") {
    return "tool_calls";
  }
  if (stop_reason == "refusal") {
    return "content_filter";
  }
  // end_turn, stop_sequence and pause_turn (a server tool paused the turn; the
  // text so far is a complete answer to show) all read as a normal stop.
  return "stop";
}

}  // namespace mgw::anthropic
