// The deterministic answer every vendor route gives, so tests can compare
// vendors: the same conversation yields the same text and token counts
// whichever wire format carried it. Each vendor's *_format.cpp extracts
// text(m) from its own message shape and feeds it to a ReplyBuilder.
//
//   reply    = "echo: " + text(last user message), every whitespace run
//              collapsed to one space and the ends trimmed ("echo:" alone if
//              there is no user text). words=N gives "tok0 ... tok<N-1>".
//   prompt   P = sum over prompt messages (system included) of
//              4 + ceil(bytes(text(m)) / 4)
//   completion C = number of space-separated words of reply
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace fake_upstream {

struct Reply {
  std::string text;
  int promptTokens = 0;
  int completionTokens = 0;
  int bytePromptTokens = 0;  // 4 + bytes per prompt message: the byte_tokens fault's count
};

class ReplyBuilder {
 public:
  // Counts one prompt message whose text is `text`; the last user message
  // added is the one echoed.
  void addMessage(std::string_view text, bool isUser);

  // words < 0 means "echo the last user message".
  Reply build(int words) const;

 private:
  int promptTokens_ = 0;
  int bytePromptTokens_ = 0;
  std::string lastUser_;
};

// text(m) for OpenAI and Anthropic content: a string as it is; an array: the
// "text" of its {"type":"text"} parts joined with one space; else nothing.
void appendContentText(const nlohmann::json& content, std::string& out);

// Splits a reply into stream deltas: one per word, each keeping its trailing
// space (reply words are separated by exactly one space), so the deltas
// concatenate to the reply. An empty reply has no deltas.
class DeltaSplitter {
 public:
  explicit DeltaSplitter(std::string_view text) : text_(text) {}

  // The next delta in `out`; false when there is none left.
  bool next(std::string_view& out);

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace fake_upstream
