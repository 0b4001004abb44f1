// POST /v1/responses, the answer side for a stream: chat.completion.chunk
// objects in, the Responses API's typed events out, each an SSE event
// (`event: <type>` and `data: {...}`) with its sequence_number and the call's
// request_id:
//   response.created, response.in_progress, then per output item
//   response.output_item.added, for a message response.content_part.added,
//   response.output_text.delta... .done, response.content_part.done, for a
//   function call response.function_call_arguments.delta... .done, and
//   response.output_item.done; last response.completed (or
//   response.incomplete when the output limit cut it), or response.failed
//   followed by an `error` event in the spec's envelope.
#pragma once

#include "errors/api_error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::responses {

// Usage as the chain counted it (the plugin's mgw_usage), for the final event.
struct StreamUsage {
  std::int64_t input = 0, output = 0, cached = 0, reasoning = 0;
};

// The data of the `error` event that follows response.failed: the spec's
// envelope, with code, message and param also at the top as OpenAI's event has
// them.
nlohmann::json error_event(const errors::ApiError& error, std::string_view request_id);

class ResponseEventWriter {
 public:
  ResponseEventWriter(nlohmann::json echo, std::string request_id);

  // One chat chunk; false when it is not a JSON object.
  bool chunk(std::string_view chunk_json, std::string& out);
  // The provider's stream ended; `usage` when it reported one.
  void finish(const std::optional<StreamUsage>& usage, std::string& out);
  // The stream failed after it began.
  void fail(const errors::ApiError& error, std::string& out);
  // The response finish() ends the stream with (every item completed), for
  // whoever keeps it before it is sent. Built once, after the last chunk:
  // finish() sends this very object (the first call's usage stands).
  const nlohmann::json& final_response(const std::optional<StreamUsage>& usage);

 private:
  struct Item {
    enum Kind { message, function_call } kind = message;
    std::string id;
    std::size_t output_index = 0;
    bool done = false;
    // message: the text (or refusal) so far; function_call: call_id, name, arguments.
    std::string text;
    bool refusal = false;
    std::string call_id, name, arguments;
  };

  void stamp();  // created_at_, when no chunk gave it
  void start(std::string& out);
  void event(std::string_view type, nlohmann::json data, std::string& out);
  Item& open_message(bool refusal, std::string& out);
  Item& open_call(std::int64_t index, const nlohmann::json& call, std::string& out);
  void close(Item& item, std::string& out);
  nlohmann::json item_json(const Item& item) const;
  nlohmann::json response(std::string_view status) const;

  nlohmann::json echo_;
  std::string request_id_;
  std::int64_t sequence_ = 0;
  bool started_ = false;
  bool ended_ = false;
  std::int64_t created_at_ = 0;
  std::string model_;
  std::string finish_reason_;
  std::vector<Item> items_;
  std::optional<std::size_t> message_;                       // index into items_ of the open message
  std::vector<std::pair<std::int64_t, std::size_t>> calls_;  // chat tool index -> items_ index
  nlohmann::json chunk_usage_;                               // a usage member a chunk carried
  std::optional<nlohmann::json> final_;                      // final_response(), once built
};

}  // namespace modelgw::responses
