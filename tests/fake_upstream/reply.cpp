#include "reply.h"

#include <nlohmann/json.hpp>

namespace fake_upstream {
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

}  // namespace

void ReplyBuilder::addMessage(std::string_view text, bool isUser) {
  promptTokens_ += 4 + static_cast<int>((text.size() + 3) / 4);
  bytePromptTokens_ += 4 + static_cast<int>(text.size());
  if (isUser) lastUser_.assign(text);
}

Reply ReplyBuilder::build(int words) const {
  Reply reply;
  reply.promptTokens = promptTokens_;
  reply.bytePromptTokens = bytePromptTokens_;
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
  reply.text.reserve(lastUser_.size() + 6);
  reply.text.append("echo:");
  reply.completionTokens = 1;
  forEachWord(lastUser_, [&](std::string_view word) {
    reply.text.push_back(' ');
    reply.text.append(word);
    ++reply.completionTokens;
  });
  return reply;
}

void appendContentText(const nlohmann::json& content, std::string& out) {
  if (content.is_string()) {
    out.append(content.get_ref<const std::string&>());
    return;
  }
  if (!content.is_array()) return;
  bool first = true;
  for (const auto& part : content) {
    if (!part.is_object()) continue;
    const auto type = part.find("type");
    const auto text = part.find("text");
    if (type == part.end() || *type != "text" || text == part.end() || !text->is_string()) continue;
    if (!first) out.push_back(' ');
    out.append(text->get_ref<const std::string&>());
    first = false;
  }
}

bool DeltaSplitter::next(std::string_view& out) {
  if (pos_ >= text_.size()) return false;
  const size_t space = text_.find(' ', pos_);
  const size_t end = space == std::string_view::npos ? text_.size() : space + 1;
  out = text_.substr(pos_, end - pos_);
  pos_ = end;
  return true;
}

}  // namespace fake_upstream
