// POST /v1/responses, the request side: the OpenAI Responses API's body
// checked and translated to the chat completions request the chain serves
// (instructions and input items to messages, function tools, tool_choice,
// text.format to response_format, max_output_tokens to max_tokens), and the
// members the response object repeats back. Errors name the Responses
// parameter (input[2].content[0].image_url), never the chat one.
#pragma once

#include "errors/api_error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace modelgw::responses {

struct TranslateOptions {
  // The gateway keeps responses (the storage plugin does): `store` (true by
  // default, as OpenAI's) and `previous_response_id` are served.
  bool keeps_responses = false;
};

struct TranslatedRequest {
  nlohmann::json chat;  // a chat completions body
  // What the response object repeats of the request (instructions,
  // max_output_tokens, metadata, parallel_tool_calls, previous_response_id,
  // reasoning, store, temperature, text, tool_choice, tools, top_p,
  // truncation, user): the values the request gave (and store, always), to
  // be read over echo_defaults() (full_echo). Not a copy of the defaults on
  // every request: they are most of it.
  nlohmann::json echo;
  bool store = false;                      // keep the answered turn
  std::string previous_response_id;        // the conversation it continues; empty: none
  bool has_instructions = false;           // chat.messages[0] is the instructions
  std::vector<std::string> dropped_tools;  // hosted tools left out (their types)
};

// The response object's request members as OpenAI gives them when the
// request leaves them out.
const nlohmann::json& echo_defaults();
// `echo` (TranslatedRequest::echo) over echo_defaults(): every member the
// response repeats.
nlohmann::json full_echo(const nlohmann::json& echo);

// Between a namespace's name and its function's in the chat form's function
// name (OpenAI's function names take [A-Za-z0-9_-]).
inline constexpr std::string_view kNamespaceSeparator = "__";

// OpenAI's hosted tools (web_search, file_search...): its own services, which
// the gateway leaves out of every request (X-Dropped-Tools names them).
bool is_hosted_tool(std::string_view type);

// `body` is read, not kept: a door that also sends it natively moves it on.
std::variant<TranslatedRequest, errors::ApiError> translate_request(const nlohmann::json& body,
                                                                    TranslateOptions options = {});

// The output items of a kept response (messages, function calls; reasoning
// is dropped) as the chat messages a conversation continues with. Items it
// cannot read are skipped.
nlohmann::json output_messages(const nlohmann::json& output_items);

}  // namespace modelgw::responses
