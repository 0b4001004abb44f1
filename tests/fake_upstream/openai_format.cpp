#include "openai_format.h"

#include <ctime>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "json_text.h"

namespace fake_upstream::openai {
namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Calls f(word) for each whitespace-separated word of `text`.
template <typename F>
void forEachWord(std::string_view text, F&& f) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && isSpace(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !isSpace(text[i])) ++i;
    if (i > start) f(text.substr(start, i - start));
  }
}

// text(m) from the header comment, appended to `out`.
void appendMessageText(const nlohmann::json& message, std::string& out) {
  if (!message.is_object()) return;
  const auto it = message.find("content");
  if (it == message.end()) return;
  if (it->is_string()) {
    out.append(it->get_ref<const std::string&>());
    return;
  }
  if (!it->is_array()) return;
  bool first = true;
  for (const auto& part : *it) {
    if (!part.is_object()) continue;
    const auto type = part.find("type");
    const auto text = part.find("text");
    if (type == part.end() || *type != "text" || text == part.end() || !text->is_string()) continue;
    if (!first) out.push_back(' ');
    out.append(text->get_ref<const std::string&>());
    first = false;
  }
}

bool isUserMessage(const nlohmann::json& message) {
  if (!message.is_object()) return false;
  const auto role = message.find("role");
  return role != message.end() && *role == "user";
}

std::mt19937_64& rng() {
  thread_local std::mt19937_64 engine{std::random_device{}() ^
                                      std::hash<std::thread::id>{}(std::this_thread::get_id())};
  return engine;
}

void appendUsage(std::string& out, const ChatReply& reply) {
  out.append("{\"prompt_tokens\":");
  out.append(std::to_string(reply.promptTokens));
  out.append(",\"completion_tokens\":");
  out.append(std::to_string(reply.completionTokens));
  out.append(",\"total_tokens\":");
  out.append(std::to_string(reply.promptTokens + reply.completionTokens));
  out.push_back('}');
}

}  // namespace

ChatReply buildReply(const nlohmann::json& messages, int words) {
  ChatReply reply;
  // Scratch text reused across requests served by this thread.
  thread_local std::string text;
  const nlohmann::json* lastUser = nullptr;
  for (const auto& message : messages) {
    text.clear();
    appendMessageText(message, text);
    reply.promptTokens += 4 + static_cast<int>((text.size() + 3) / 4);
    if (isUserMessage(message)) lastUser = &message;
  }

  if (words >= 0) {
    reply.text.reserve(static_cast<size_t>(words) * 8);
    for (int i = 0; i < words; ++i) {
      if (i > 0) reply.text.push_back(' ');
      reply.text.append("tok");
      reply.text.append(std::to_string(i));
    }
    reply.completionTokens = words;
    return reply;
  }

  text.clear();
  if (lastUser != nullptr) appendMessageText(*lastUser, text);
  reply.text.reserve(text.size() + 6);
  reply.text.append("echo:");
  reply.completionTokens = 1;
  forEachWord(text, [&](std::string_view word) {
    reply.text.push_back(' ');
    reply.text.append(word);
    ++reply.completionTokens;
  });
  return reply;
}

ResponseMeta newResponseMeta(std::string_view model) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  ResponseMeta meta;
  meta.id.reserve(38);
  meta.id.append("chatcmpl-");
  auto& engine = rng();
  for (int i = 0; i < 29; ++i) meta.id.push_back(kAlphabet[engine() % (sizeof(kAlphabet) - 1)]);
  meta.created = static_cast<int64_t>(std::time(nullptr));
  meta.model = model;
  return meta;
}

void appendCompletion(std::string& out, const ResponseMeta& meta, const ChatReply& reply) {
  out.append("{\"id\":");
  appendJsonString(out, meta.id);
  out.append(",\"object\":\"chat.completion\",\"created\":");
  out.append(std::to_string(meta.created));
  out.append(",\"model\":");
  appendJsonString(out, meta.model);
  out.append(
      ",\"system_fingerprint\":\"fp_fake\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
      "\"content\":");
  appendJsonString(out, reply.text);
  out.append(",\"refusal\":null},\"logprobs\":null,\"finish_reason\":\"stop\"}],\"usage\":");
  appendUsage(out, reply);
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
