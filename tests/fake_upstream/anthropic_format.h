// Anthropic Messages wire format: the deterministic reply (reply.h) for a
// request body, the tool_use answer, and the JSON of messages and of the
// stream events.
//
//   text(m) = m.content if it is a string; if it is an array, the "text" of
//             its {"type":"text"} blocks joined with one space; else "".
//   prompt  P = (system present ? 4 + ceil(bytes(text(system)) / 4) : 0)
//             + sum over messages of (4 + ceil(bytes(text(m)) / 4)),
//             so a system prompt counts like OpenAI's system message.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "anthropic_cache.h"
#include "reply.h"

namespace fake_upstream::anthropic {

// `body` must be an object whose "messages" is an array.
Reply buildReply(const nlohmann::json& body, int words);

// The tool_use answer: the first tool called with {"query": <text(last)>}.
struct ToolCall {
  std::string name;
  std::string inputJson;  // {"query": "<text>"}, with a space after the colon like Anthropic's
};

inline constexpr std::string_view kToolUseId = "toolu_fake_1";

// Set when `tools` is a non-empty array whose first entry has a string
// "name", tool_choice is not {"type":"none"}, and the last message is a
// user message with text (a string, or text blocks and no tool_result).
std::optional<ToolCall> toolCallFor(const nlohmann::json& body);

// With "thinking": {"type": "enabled", ...} the answer starts with a thinking
// block of this text (its words count as output tokens) and this signature.
inline constexpr std::string_view kThinkingText = "Let me think.";
inline constexpr int kThinkingWords = 3;
inline constexpr std::string_view kThinkingSignature = "c2lnbmF0dXJlOmZha2U=";

// True when the body asks for extended thinking.
bool thinkingEnabled(const nlohmann::json& body);

struct MessageMeta {
  std::string id;  // "msg_" + 24 random alphanumerics
  std::string_view model;
  bool usage = true;      // false with no_usage: every "usage" object is left out
  bool thinking = false;  // a thinking block comes first
  CacheUsage cache;       // the prompt cache's share of the input tokens (anthropic_cache.h)
};

MessageMeta newMessageMeta(std::string_view model, bool usage);

// Appends a whole non-streaming message object.
void appendMessage(std::string& out, const MessageMeta& meta, const Reply& reply, const ToolCall* tool);

// The data of each stream event. The returned views stay valid until the
// next call: the buffer is reused.
class EventBuilder {
 public:
  explicit EventBuilder(const MessageMeta& meta) : meta_(meta) {}

  // The answer's block (text or tool_use) is at index answerIndex(): 1
  // after a thinking block, else 0.
  int answerIndex() const { return meta_.thinking ? 1 : 0; }

  std::string_view messageStart(const Reply& reply);
  std::string_view thinkingBlockStart();
  std::string_view thinkingDelta();
  std::string_view signatureDelta();
  std::string_view contentBlockStart(const ToolCall* tool);
  std::string_view textDelta(std::string_view text);
  std::string_view inputJsonDelta(std::string_view partialJson);
  std::string_view contentBlockStop(int index);
  std::string_view messageDelta(std::string_view stopReason, const Reply& reply);

  static std::string_view ping() { return R"({"type": "ping"})"; }
  static std::string_view messageStop() { return R"({"type":"message_stop"})"; }

 private:
  std::string_view delta(int index, std::string_view type, std::string_view field, std::string_view value);

  const MessageMeta& meta_;
  std::string buf_;
};

}  // namespace fake_upstream::anthropic
