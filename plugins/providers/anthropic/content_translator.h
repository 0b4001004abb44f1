// OpenAI message content → Anthropic content.
#pragma once

#include <modelgw/provider/json.hpp>

#include <string>
#include <string_view>

namespace mgw::anthropic {

using provider::Json;

// A user or assistant message's `content`: a string stays a string; an array
// of parts becomes content blocks (text → text, image_url → image, an
// assistant's refusal part → text). `path` is the message's, e.g.
// "messages[2]". Throws Rejection for any other part type or a bad image URL.
Json message_content(const Json& content, std::string_view path);

// A tool message's `content` for a tool_result block: a string stays a string,
// text parts become text blocks; other part types are refused.
Json tool_result_content(const Json& content, std::string_view path);

// The text of a system or developer message: the string, or its text parts
// joined with "\n\n" (Anthropic's top-level `system` is text only).
std::string system_text(const Json& content, std::string_view path);

}  // namespace mgw::anthropic
