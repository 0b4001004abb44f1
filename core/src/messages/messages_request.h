// POST /v1/messages, the request side: Anthropic's Messages API body checked
// as Anthropic checks it where that is cheap, and translated to the chat
// completions request the chain serves. Errors are 400 invalid_request_error
// naming the Messages parameter (messages[2].content[0].source), never the
// chat one.
//
// Choices where the two APIs differ:
//   - system (a string or text blocks) -> one system message, blocks joined
//     with "\n";
//   - a user turn's tool_result blocks -> role "tool" messages (its text; an
//     is_error result is prefixed "Error: "), placed before the rest of the
//     turn, which follows as one user message (with any image a tool result
//     held, which a chat tool message cannot carry);
//   - image blocks -> image_url parts (base64 as a data: URL); a PDF document
//     (base64) -> a `file` part with file_data as a data: URL; a text
//     document -> a text part; a content document -> its blocks;
//   - thinking and redacted_thinking blocks are dropped: only a provider that
//     serves this API natively can take them back (they stay in the native
//     body);
//   - thinking {type: enabled, budget_tokens} -> reasoning_effort: below 4096
//     "low", below 16384 "medium", else "high"; adaptive -> "medium";
//     output_config.effort, when given, wins;
//   - what needs Anthropic's own servers (server tools such as
//     web_search_20250305, Anthropic-defined client tools such as
//     bash_20250124, container, mcp_servers, context_management, file
//     sources) is refused: no chat vendor runs it, and a request that
//     silently lost it would be answered wrongly;
//   - cache_control, citations, service_tier and inference_geo are hints the
//     chat form has no member for: accepted, not sent on;
//   - top_k is checked and sent on natively; the chat form has no member for
//     it, so the translation leaves it out;
//   - a member Anthropic does not know is refused ("Extra inputs are not
//     permitted"), as Anthropic refuses it.
#pragma once

#include "errors/api_error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <variant>

namespace modelgw::messages {

struct MessagesOptions {
  // The body of POST /v1/messages/count_tokens: the same checks, but
  // max_tokens may be left out.
  bool counting = false;
  // A provider of the model serves the Messages API natively: what needs
  // Anthropic's own servers (its tools, container, mcp_servers,
  // context_management) goes there in the native body and is left out of
  // the chat form instead of refused.
  bool native = false;
};

struct TranslatedMessages {
  nlohmann::json chat;  // a chat completions body
  std::string alias;    // the model as asked: what the Message repeats
  bool stream = false;
};

// `body` is read, not kept: a door that also sends it natively moves it on.
std::variant<TranslatedMessages, errors::ApiError> translate_messages(const nlohmann::json& body,
                                                                      MessagesOptions options = {});

// The reasoning_effort a thinking budget is sent as (see above).
std::string_view effort_for_budget(std::int64_t budget_tokens);

}  // namespace modelgw::messages
