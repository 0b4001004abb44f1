// OpenAI Responses wire format (POST /v1/responses): the deterministic reply
// (reply.h) for a Responses request, the function call and reasoning items,
// and the JSON of the response object and of its stream events.
//
//   text(item) = for a message item (type "message", or no type and a role):
//                content if it is a string; if it is an array, the "text"
//                of its input_text / output_text / text parts joined with
//                one space. For a function_call_output: its "output" if it
//                is a string. Any other item: "".
//   prompt  P = (instructions present ? 4 + ceil(bytes(instructions) / 4) : 0)
//             + sum over input items but reasoning items of
//               (4 + ceil(bytes(text(item)) / 4)); a string input is one
//               user message. So a conversation counts as its chat form does.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "reply.h"

namespace fake_upstream::openai::responses {

using Json = nlohmann::ordered_json;

// `body` must be an object whose "input" is a string or an array.
Reply buildReply(const nlohmann::json& body, int words);

// The function call answered instead of text.
struct FunctionCall {
  std::string name;
  std::string arguments;  // {"query":"<text(last item)>"}
};

// Set when `tools` is a non-empty array whose first entry is a function tool
// with a string "name", tool_choice is not "none", and the last input item is
// a user message with text.
std::optional<FunctionCall> functionCallFor(const nlohmann::json& body);

// Identity and options of one response.
struct ResponseMeta {
  std::string id;         // "resp_" + 32 random alphanumerics
  std::string messageId;  // "msg_..."
  std::string reasoningId;
  std::string callItemId;  // "fc_..."
  int64_t createdAt = 0;
  std::string_view model;
  bool reasoning = false;  // the request set "reasoning": a leading reasoning item
  bool encrypted = false;  // and asked for reasoning.encrypted_content
  bool usage = true;       // false with no_usage: "usage" is null
};

ResponseMeta newResponseMeta(std::string_view model, const nlohmann::json& body, bool usage);

inline constexpr std::string_view kCallId = "call_fake_1";

// The output items, each in its final (completed) form.
Json reasoningItem(const ResponseMeta& meta);
Json messageItem(const ResponseMeta& meta, std::string_view text, std::string_view status);
Json functionCallItem(const ResponseMeta& meta, const FunctionCall& call, std::string_view arguments,
                      std::string_view status);

// The response object: `status` "completed", "in_progress" or "failed";
// `output` the items; usage only when completed.
Json responseObject(const ResponseMeta& meta, std::string_view status, Json output, const Reply* usage);

// A whole completed response: [reasoning], then the message or the call.
Json completedResponse(const ResponseMeta& meta, const Reply& reply, const FunctionCall* call);

// The error object of a failed response (error200).
Json serverError();

// The stream's events, numbered from 0 in the order they are made.
class EventBuilder {
 public:
  // {"type": type, "sequence_number": n, ...fields}, serialised.
  std::string make(std::string_view type, Json fields);

 private:
  int next_ = 0;
};

}  // namespace fake_upstream::openai::responses
