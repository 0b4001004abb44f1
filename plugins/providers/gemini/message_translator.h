// OpenAI chat messages → Gemini's contents and systemInstruction.
#pragma once

#include <modelgw/provider/json.hpp>

namespace mgw::gemini {

using provider::Json;

struct TranslatedMessages {
  Json contents = Json::array();  // [{role: "user"|"model", parts: [...]}]
  Json system_instruction;        // {parts: [{text}]}, or null when there is none
};

// Translates the client's "messages" array:
//   system / developer → systemInstruction (texts joined with a blank line);
//   user → role "user"; assistant → role "model", tool_calls → functionCall;
//   tool → role "user" functionResponse, named after the assistant tool call
//   with that tool_call_id;
//   text → {text}; image_url → inlineData (data: URL) or fileData (http(s));
//   consecutive contents of one role merge into one.
// Throws InvalidRequest naming the offending field.
TranslatedMessages translate_messages(const Json& messages);

}  // namespace mgw::gemini
