// POST /v1/messages, the answer side for a whole answer: a chat completion
// (whatever vendor served it, the provider plugin wrote it in OpenAI's chat
// form) becomes Anthropic's Message object. Also the pieces the stream
// writer (message_events.h) shares: ids, stop reasons, the usage block.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace modelgw::messages {

// Usage as the chain counts it (mgw_usage): prompt_tokens holds the cached
// and cache-written tokens too.
struct MessageUsage {
  std::int64_t prompt = 0, completion = 0, cache_read = 0, cache_write = 0;
};

// Anthropic's usage block: input_tokens is the prompt less what was read
// from or written to the cache, as Anthropic counts it.
nlohmann::json anthropic_usage(const MessageUsage& usage);
// A chat completion's usage member (prompt_tokens_details.cached_tokens).
MessageUsage usage_of_chat(const nlohmann::json& chat_usage);

// Ids derived from the call's request_id (req_<24>): msg_<24>, and
// toolu_<24>_<n> for a tool call the provider gave no id.
std::string message_id(std::string_view request_id);
std::string tool_use_id(std::string_view request_id, std::size_t n);

// A chat finish_reason -> Anthropic's stop_reason (stop: end_turn, length:
// max_tokens, tool_calls: tool_use, content_filter: refusal).
std::string_view stop_reason_for(std::string_view finish_reason);

// A tool call's arguments as tool_use's input: the object they spell, or {}
// when they are not one (`parsed` says which; never throws).
nlohmann::json tool_input(std::string_view arguments, bool& parsed);

// The whole answer, with the call's request_id; nullopt when
// `chat_completion` is not a chat completion. `alias`: the model as asked.
// `unparsed_arguments`: how many tool calls' arguments were not a JSON
// object (sent as {}), for the caller to log.
std::optional<std::string> whole_message(std::string_view chat_completion, std::string_view alias,
                                         std::string_view request_id,
                                         std::size_t* unparsed_arguments = nullptr);

}  // namespace modelgw::messages
