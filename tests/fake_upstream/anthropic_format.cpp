#include "anthropic_format.h"

#include <nlohmann/json.hpp>

#include "json_text.h"
#include "random_id.h"

namespace fake_upstream::anthropic {
namespace {

bool hasRole(const nlohmann::json& message, std::string_view role) {
  if (!message.is_object()) return false;
  const auto it = message.find("role");
  return it != message.end() && it->is_string() && it->get_ref<const std::string&>() == role;
}

const nlohmann::json* contentOf(const nlohmann::json& message) {
  if (!message.is_object()) return nullptr;
  const auto it = message.find("content");
  return it == message.end() ? nullptr : &*it;
}

// A user turn that carries text rather than tool results.
bool isUserText(const nlohmann::json& message) {
  if (!hasRole(message, "user")) return false;
  const auto* content = contentOf(message);
  if (content == nullptr) return false;
  if (content->is_string()) return true;
  if (!content->is_array()) return false;
  bool text = false;
  for (const auto& block : *content) {
    if (!block.is_object()) continue;
    const auto type = block.find("type");
    if (type == block.end()) continue;
    if (*type == "tool_result") return false;
    if (*type == "text") text = true;
  }
  return text;
}

// input_tokens is what the prompt cache did not hold (anthropic_cache.h).
void appendUsage(std::string& out, const CacheUsage& cache, int promptTokens, int outputTokens) {
  out.append("{\"input_tokens\":");
  out.append(std::to_string(promptTokens - cache.creationTokens - cache.readTokens));
  if (cache.cached) {
    out.append(",\"cache_creation_input_tokens\":");
    out.append(std::to_string(cache.creationTokens));
    out.append(",\"cache_read_input_tokens\":");
    out.append(std::to_string(cache.readTokens));
  }
  out.append(",\"output_tokens\":");
  out.append(std::to_string(outputTokens));
  out.push_back('}');
}

void appendToolUseBlock(std::string& out, const ToolCall& tool, std::string_view input) {
  out.append("{\"type\":\"tool_use\",\"id\":");
  appendJsonString(out, kToolUseId);
  out.append(",\"name\":");
  appendJsonString(out, tool.name);
  out.append(",\"input\":");
  out.append(input);
  out.push_back('}');
}

void appendThinkingBlock(std::string& out, std::string_view thinking, std::string_view signature) {
  out.append("{\"type\":\"thinking\",\"thinking\":");
  appendJsonString(out, thinking);
  out.append(",\"signature\":");
  appendJsonString(out, signature);
  out.push_back('}');
}

}  // namespace

bool thinkingEnabled(const nlohmann::json& body) {
  const auto thinking = body.find("thinking");
  if (thinking == body.end() || !thinking->is_object()) return false;
  const auto type = thinking->find("type");
  return type != thinking->end() && *type == "enabled";
}

Reply buildReply(const nlohmann::json& body, int words) {
  ReplyBuilder builder;
  thread_local std::string text;
  if (const auto system = body.find("system"); system != body.end() && !system->is_null()) {
    text.clear();
    appendContentText(*system, text);
    builder.addMessage(text, false);
  }
  for (const auto& message : body.at("messages")) {
    text.clear();
    if (const auto* content = contentOf(message)) appendContentText(*content, text);
    builder.addMessage(text, hasRole(message, "user"));
  }
  return builder.build(words);
}

std::optional<ToolCall> toolCallFor(const nlohmann::json& body) {
  const auto tools = body.find("tools");
  if (tools == body.end() || !tools->is_array() || tools->empty()) return std::nullopt;
  const auto& first = tools->front();
  if (!first.is_object()) return std::nullopt;
  const auto name = first.find("name");
  if (name == first.end() || !name->is_string()) return std::nullopt;
  if (const auto choice = body.find("tool_choice"); choice != body.end() && choice->is_object()) {
    const auto type = choice->find("type");
    if (type != choice->end() && *type == "none") return std::nullopt;
  }
  const auto& messages = body.at("messages");
  if (messages.empty() || !isUserText(messages.back())) return std::nullopt;

  std::string query;
  appendContentText(*contentOf(messages.back()), query);
  ToolCall call;
  call.name = name->get<std::string>();
  call.inputJson.append("{\"query\": ");
  appendJsonString(call.inputJson, query);
  call.inputJson.push_back('}');
  return call;
}

MessageMeta newMessageMeta(std::string_view model, bool usage) {
  MessageMeta meta;
  meta.id.reserve(28);
  meta.id.append("msg_");
  appendRandomAlnum(meta.id, 24);
  meta.model = model;
  meta.usage = usage;
  return meta;
}

void appendMessage(std::string& out, const MessageMeta& meta, const Reply& reply, const ToolCall* tool) {
  out.append("{\"id\":");
  appendJsonString(out, meta.id);
  out.append(",\"type\":\"message\",\"role\":\"assistant\",\"model\":");
  appendJsonString(out, meta.model);
  out.append(",\"content\":[");
  if (meta.thinking) {
    appendThinkingBlock(out, kThinkingText, kThinkingSignature);
    out.push_back(',');
  }
  if (tool != nullptr) {
    appendToolUseBlock(out, *tool, tool->inputJson);
  } else {
    out.append("{\"type\":\"text\",\"text\":");
    appendJsonString(out, reply.text);
    out.push_back('}');
  }
  out.append("],\"stop_reason\":");
  out.append(tool != nullptr ? "\"tool_use\"" : "\"end_turn\"");
  out.append(",\"stop_sequence\":null");
  if (meta.usage) {
    out.append(",\"usage\":");
    appendUsage(out, meta.cache, reply.promptTokens, reply.completionTokens);
  }
  out.push_back('}');
}

std::string_view EventBuilder::messageStart(const Reply& reply) {
  buf_.assign("{\"type\":\"message_start\",\"message\":{\"id\":");
  appendJsonString(buf_, meta_.id);
  buf_.append(",\"type\":\"message\",\"role\":\"assistant\",\"model\":");
  appendJsonString(buf_, meta_.model);
  buf_.append(",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null");
  if (meta_.usage) {
    // Like Anthropic's: input tokens, and a token or so of output so far.
    buf_.append(",\"usage\":");
    appendUsage(buf_, meta_.cache, reply.promptTokens, 1);
  }
  buf_.append("}}");
  return buf_;
}

std::string_view EventBuilder::thinkingBlockStart() {
  buf_.assign("{\"type\":\"content_block_start\",\"index\":0,\"content_block\":");
  appendThinkingBlock(buf_, "", "");
  buf_.push_back('}');
  return buf_;
}

std::string_view EventBuilder::thinkingDelta() {
  return delta(0, "thinking_delta", "thinking", kThinkingText);
}

std::string_view EventBuilder::signatureDelta() {
  return delta(0, "signature_delta", "signature", kThinkingSignature);
}

std::string_view EventBuilder::contentBlockStop(int index) {
  buf_.assign("{\"type\":\"content_block_stop\",\"index\":");
  buf_.append(std::to_string(index));
  buf_.push_back('}');
  return buf_;
}

std::string_view EventBuilder::contentBlockStart(const ToolCall* tool) {
  buf_.assign("{\"type\":\"content_block_start\",\"index\":");
  buf_.append(std::to_string(answerIndex()));
  buf_.append(",\"content_block\":");
  if (tool != nullptr) {
    appendToolUseBlock(buf_, *tool, "{}");
  } else {
    buf_.append("{\"type\":\"text\",\"text\":\"\"}");
  }
  buf_.push_back('}');
  return buf_;
}

std::string_view EventBuilder::textDelta(std::string_view text) {
  return delta(answerIndex(), "text_delta", "text", text);
}

std::string_view EventBuilder::inputJsonDelta(std::string_view partialJson) {
  return delta(answerIndex(), "input_json_delta", "partial_json", partialJson);
}

std::string_view EventBuilder::delta(int index, std::string_view type, std::string_view field,
                                     std::string_view value) {
  buf_.assign("{\"type\":\"content_block_delta\",\"index\":");
  buf_.append(std::to_string(index));
  buf_.append(",\"delta\":{\"type\":\"");
  buf_.append(type);
  buf_.append("\",\"");
  buf_.append(field);
  buf_.append("\":");
  appendJsonString(buf_, value);
  buf_.append("}}");
  return buf_;
}

std::string_view EventBuilder::messageDelta(std::string_view stopReason, const Reply& reply) {
  buf_.assign("{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"");
  buf_.append(stopReason);
  buf_.append("\",\"stop_sequence\":null}");
  if (meta_.usage) {
    // Cumulative, as Anthropic's: the final output token count.
    buf_.append(",\"usage\":{\"output_tokens\":");
    buf_.append(std::to_string(reply.completionTokens));
    buf_.push_back('}');
  }
  buf_.push_back('}');
  return buf_;
}

}  // namespace fake_upstream::anthropic
