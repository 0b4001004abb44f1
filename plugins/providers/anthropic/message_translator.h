// The OpenAI conversation → Anthropic's `system` and `messages`.
#pragma once

#include <modelgw/provider/json.hpp>

#include <string>

namespace mgw::anthropic {

using provider::Json;

struct Conversation {
  std::string system;             // every system/developer text, joined with "\n\n"; empty for none
  Json messages = Json::array();  // alternating user / assistant turns
};

// Translates the request's `messages` array:
//   - system and developer messages, wherever they stand, → `system`;
//   - user → a user turn; assistant → an assistant turn (text, then a
//     tool_use block per tool call); an assistant message with neither
//     content (null or "") nor tool calls carries nothing and is dropped;
//   - tool → a tool_result block in a user turn;
//   - consecutive turns of one role merge into one (Anthropic requires
//     alternation), and in a merged user turn the tool_result blocks come
//     first (Anthropic requires them before any text).
// Throws Rejection naming the offending messages[i]….
Conversation translate_messages(const Json& messages);

}  // namespace mgw::anthropic
