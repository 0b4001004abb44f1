// Gemini generateContent wire format: the deterministic reply (reply.h) for a
// request body, the functionCall answer, and GenerateContentResponse JSON.
//
//   text(c) = the "text" of c.parts joined with one space ("" without parts)
//   prompt  P = (systemInstruction present ? 4 + ceil(bytes(text) / 4) : 0)
//             + sum over contents of (4 + ceil(bytes(text(c)) / 4)),
//             so a system instruction counts like OpenAI's system message.
// A content whose role is "user" or absent is a user turn.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "reply.h"

namespace fake_upstream::gemini {

// `body` must be an object whose "contents" is an array.
Reply buildReply(const nlohmann::json& body, int words);

struct FunctionCall {
  std::string name;
  std::string query;
};

// Set when tools declare a function (functionDeclarations or
// function_declarations; the first declared is called), function calling is
// not mode NONE, and the last content is a user turn with text and no
// functionResponse part.
std::optional<FunctionCall> functionCallFor(const nlohmann::json& body);

struct ResponseMeta {
  std::string responseId;  // "fake-" + 20 random alphanumerics
  std::string_view model;
  bool usage = true;  // false with no_usage: usageMetadata is left out
};

ResponseMeta newResponseMeta(std::string_view model, bool usage);

// GenerateContentResponse objects. The returned views stay valid until the
// next call: the buffer is reused.
class ResponseBuilder {
 public:
  explicit ResponseBuilder(const ResponseMeta& meta) : meta_(meta) {}

  // A text candidate. With `final` set it also carries finishReason "STOP"
  // and usageMetadata computed from *final.
  std::string_view text(std::string_view text, const Reply* final);

  // A functionCall candidate; always final.
  std::string_view functionCall(const FunctionCall& call, const Reply& reply);

 private:
  void begin();
  void end(const Reply* final);

  const ResponseMeta& meta_;
  std::string buf_;
};

}  // namespace fake_upstream::gemini
