// OpenAI Chat Completions wire format: the deterministic reply (reply.h) for
// a messages array, and the JSON of completions and stream chunks.
//
//   text(m)  = m.content if it is a string; if it is an array, the "text" of
//              its {"type":"text"} parts joined with one space; else "".
//   prompt_tokens     P = sum over messages of (4 + ceil(bytes(text(m)) / 4))
//   completion_tokens C = number of space-separated words in reply, times n
//                       (n choices of a plain completion, each the reply)
//   total_tokens        = P + C
// A stream sends one chunk per word of the reply: the word plus a trailing
// space, except for the last word, so the deltas concatenate to the reply.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "reply.h"

namespace fake_upstream::openai {

using ChatReply = Reply;

// `messages` must be a JSON array. words < 0 means "echo the user".
ChatReply buildReply(const nlohmann::json& messages, int words);

// Identity shared by a completion or by every chunk of one stream.
struct ResponseMeta {
  std::string id;  // "chatcmpl-" + 29 random alphanumerics, like OpenAI's
  int64_t created = 0;
  std::string_view model;
};

ResponseMeta newResponseMeta(std::string_view model);

// Appends a whole "chat.completion" object to `out`: `choices` copies of the
// reply (the request's n), the completion billed once per choice.
void appendCompletion(std::string& out, const ResponseMeta& meta, const ChatReply& reply, int choices = 1);

// Builds the "chat.completion.chunk" objects of one stream. The returned
// views stay valid until the next call: the buffer is reused per chunk.
class ChunkBuilder {
 public:
  // usageNull: add "usage":null to every chunk but the usage chunk, as OpenAI
  // does when stream_options.include_usage is set.
  ChunkBuilder(const ResponseMeta& meta, bool usageNull);

  std::string_view roleChunk();
  std::string_view contentChunk(std::string_view content);
  std::string_view finishChunk();
  std::string_view usageChunk(const ChatReply& reply);

 private:
  std::string_view choiceChunk(std::string_view delta, std::string_view finishReason);

  std::string prefix_;  // {"id":...,"system_fingerprint":"fp_fake","choices":[
  std::string suffix_;  // "]}" or "],\"usage\":null}"
  std::string buf_;
};

}  // namespace fake_upstream::openai
