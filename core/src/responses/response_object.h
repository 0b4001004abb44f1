// POST /v1/responses, the answer side for a whole answer: a chat completion
// (whatever vendor served it, the provider plugin wrote it in OpenAI's chat
// form) becomes the Responses API's response object. Also the pieces the
// stream writer (response_events.h) shares: ids, the usage block, the
// response's skeleton.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace modelgw::responses {

// A member read from what a plugin wrote, whatever its type: the string or
// integer when it is one, else the fallback (nlohmann's value() throws on a
// member of another type).
std::string string_member(const nlohmann::json& object, const char* key);
std::int64_t int_member(const nlohmann::json& object, const char* key, std::int64_t fallback = 0);

// A function_call item whose name is <namespace>__<name> for a namespace the
// request's tools (`echo`) declared: named as the client declared it, with
// its `namespace`.
void name_function_call(nlohmann::json& item, const nlohmann::json& echo);

// Ids derived from the call's request_id (req_<24>): resp_<24>, msg_<24>,
// fc_<24>_<n>. Unique as request ids are, and a support ticket that quotes
// one finds the request.
std::string response_id(std::string_view request_id);
std::string message_id(std::string_view request_id);
std::string function_call_id(std::string_view request_id, std::size_t n);

// Chat usage ({prompt_tokens, completion_tokens, ..._details}) -> Responses
// usage ({input_tokens, output_tokens, input_tokens_details.cached_tokens,
// output_tokens_details.reasoning_tokens, total_tokens}).
nlohmann::json responses_usage(std::int64_t input, std::int64_t output, std::int64_t cached,
                               std::int64_t reasoning);
nlohmann::json responses_usage(const nlohmann::json& chat_usage);

// The response object with no output yet: `echo` (responses_request.h) and
// id, object, created_at, status, model, error, incomplete_details, usage.
nlohmann::json response_skeleton(const nlohmann::json& echo, std::string_view request_id,
                                 std::int64_t created_at, std::string_view model, std::string_view status);

// A chat finish_reason -> the response's status and incomplete_details
// (length: incomplete, max_output_tokens; content_filter: incomplete).
void apply_finish_reason(nlohmann::json& response, std::string_view finish_reason);

// A kept turn's chat messages as the Responses API lists input items
// (GET /v1/responses/{id}/input_items): messages with input_text,
// input_image and input_file parts (an assistant's with output_text),
// function_call and function_call_output items, each with an id derived from
// the response's.
nlohmann::json input_items(const nlohmann::json& chat_messages, std::string_view response_id);

// The whole answer; nullopt when `chat_completion` is not a chat completion.
std::optional<std::string> whole_response(std::string_view chat_completion, const nlohmann::json& echo,
                                          std::string_view request_id);

}  // namespace modelgw::responses
