// Anthropic's stop_reason → OpenAI's finish_reason.
#pragma once

#include <string_view>

namespace mgw::anthropic {

// end_turn, stop_sequence, pause_turn → "stop"; max_tokens → "length";
// tool_use → "tool_calls"; refusal → "content_filter"; anything else, reasons
// added after this plugin was written included → "stop".
std::string_view finish_reason(std::string_view stop_reason) noexcept;

}  // namespace mgw::anthropic
