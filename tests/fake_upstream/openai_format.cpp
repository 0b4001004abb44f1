#include "openai_format.h"

#include <ctime>
#include <nlohmann/json.hpp>

#include "json_text.h"
#include "random_id.h"

namespace fake_upstream::openai {
namespace {

// text(m) from openai_format.h, appended to `out`.
void appendMessageText(const nlohmann::json& message, std::string& out) {
  if (!message.is_object()) return;
  const auto it = message.find("content");
  if (it != message.end()) appendContentText(*it, out);
}

bool isUserMessage(const nlohmann::json& message) {
  if (!message.is_object()) return false;
  const auto role = message.find("role");
  return role != message.end() && *role == "user";
}

// The prompt is billed once, the completion once per choice (as OpenAI does for n).
void appendUsage(std::string& out, const ChatReply& reply, int choices = 1) {
  const int completion = reply.completionTokens * choices;
  out.append("{\"prompt_tokens\":");
  out.append(std::to_string(reply.promptTokens));
  out.append(",\"completion_tokens\":");
  out.append(std::to_string(completion));
  out.append(",\"total_tokens\":");
  out.append(std::to_string(reply.promptTokens + completion));
  out.push_back('}');
}

}  // namespace

ChatReply buildReply(const nlohmann::json& messages, int words) {
  ReplyBuilder builder;
  // Scratch text reused across requests served by this thread.
  thread_local std::string text;
  for (const auto& message : messages) {
    text.clear();
    appendMessageText(message, text);
    builder.addMessage(text, isUserMessage(message));
  }
  return builder.build(words);
}

ResponseMeta newResponseMeta(std::string_view model) {
  ResponseMeta meta;
  meta.id.reserve(38);
  meta.id.append("chatcmpl-");
  appendRandomAlnum(meta.id, 29);
  meta.created = static_cast<int64_t>(std::time(nullptr));
  meta.model = model;
  return meta;
}

void appendCompletion(std::string& out, const ResponseMeta& meta, const ChatReply& reply, int choices) {
  out.append("{\"id\":");
  appendJsonString(out, meta.id);
  out.append(",\"object\":\"chat.completion\",\"created\":");
  out.append(std::to_string(meta.created));
  out.append(",\"model\":");
  appendJsonString(out, meta.model);
  out.append(",\"system_fingerprint\":\"fp_fake\",\"choices\":[");
  for (int i = 0; i < choices; ++i) {
    out.append(i == 0 ? "{\"index\":" : ",{\"index\":");
    out.append(std::to_string(i));
    out.append(",\"message\":{\"role\":\"assistant\",\"content\":");
    appendJsonString(out, reply.text);
    out.append(",\"refusal\":null},\"logprobs\":null,\"finish_reason\":\"stop\"}");
  }
  out.append("],\"usage\":");
  appendUsage(out, reply, choices);
  out.push_back('}');
}

ChunkBuilder::ChunkBuilder(const ResponseMeta& meta, bool usageNull) {
  prefix_.append("{\"id\":");
  appendJsonString(prefix_, meta.id);
  prefix_.append(",\"object\":\"chat.completion.chunk\",\"created\":");
  prefix_.append(std::to_string(meta.created));
  prefix_.append(",\"model\":");
  appendJsonString(prefix_, meta.model);
  prefix_.append(",\"system_fingerprint\":\"fp_fake\",\"choices\":[");
  suffix_ = usageNull ? "],\"usage\":null}" : "]}";
  buf_.reserve(prefix_.size() + 256);
}

std::string_view ChunkBuilder::roleChunk() {
  return choiceChunk("{\"role\":\"assistant\",\"content\":\"\"}", "null");
}

std::string_view ChunkBuilder::contentChunk(std::string_view content) {
  thread_local std::string delta;
  delta.assign("{\"content\":");
  appendJsonString(delta, content);
  delta.push_back('}');
  return choiceChunk(delta, "null");
}

std::string_view ChunkBuilder::finishChunk() {
  return choiceChunk("{}", "\"stop\"");
}

std::string_view ChunkBuilder::usageChunk(const ChatReply& reply) {
  buf_.assign(prefix_);
  buf_.append("],\"usage\":");
  appendUsage(buf_, reply);
  buf_.push_back('}');
  return buf_;
}

std::string_view ChunkBuilder::choiceChunk(std::string_view delta, std::string_view finishReason) {
  buf_.assign(prefix_);
  buf_.append("{\"index\":0,\"delta\":");
  buf_.append(delta);
  buf_.append(",\"logprobs\":null,\"finish_reason\":");
  buf_.append(finishReason);
  buf_.push_back('}');
  buf_.append(suffix_);
  return buf_;
}

}  // namespace fake_upstream::openai
