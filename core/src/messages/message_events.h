// POST /v1/messages, the answer side for a stream: chat.completion.chunk
// objects in, Anthropic's event stream out, each an SSE event
// (`event: <type>` and `data: {...}`):
//   message_start (the message with no content yet, and the call's
//   request_id), then per content block content_block_start,
//   content_block_delta... and content_block_stop: reasoning as a thinking
//   block (thinking_delta), text as a text block (text_delta), each tool call
//   as a tool_use block (input_json_delta); blocks are numbered from 0 in
//   order and one is open at a time; then message_delta (stop_reason,
//   stop_sequence, usage) and message_stop. A stream that fails after it
//   began ends with `error` (errors/anthropic_error.h).
// A chat stream that goes back to a tool call after another began (no vendor
// does) has the late arguments dropped: a block once stopped is not opened
// again (dropped_arguments() counts them, for the caller to log).
#pragma once

#include "errors/api_error.h"
#include "messages/message_object.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace modelgw::messages {

class MessageEventWriter {
 public:
  // `alias`: the model as asked.
  MessageEventWriter(std::string alias, std::string request_id);

  // One chat chunk; false when it is not a JSON object.
  bool chunk(std::string_view chunk_json, std::string& out);
  // The provider's stream ended; `usage` when it reported one (else what a
  // chunk carried).
  void finish(const std::optional<MessageUsage>& usage, std::string& out);
  // The stream failed after it began.
  void fail(const errors::ApiError& error, std::string& out);

  std::size_t dropped_arguments() const { return dropped_arguments_; }

 private:
  enum class Block { none, text, thinking, tool_use };

  void start(std::string& out);
  void event(std::string_view type, const nlohmann::json& data, std::string& out);
  // Stops the open block, if any, and starts the next one.
  void open(Block kind, nlohmann::json content_block, std::string& out);
  void close(std::string& out);
  void delta(nlohmann::json delta, std::string& out);

  std::string alias_;
  std::string request_id_;
  bool started_ = false;
  bool ended_ = false;
  Block open_ = Block::none;
  std::int64_t index_ = -1;          // the open (or last) block's index
  std::int64_t open_call_ = -1;      // the chat tool index of the open tool_use block
  std::vector<std::int64_t> calls_;  // chat tool indexes whose blocks were opened
  std::string finish_reason_;
  nlohmann::json chunk_usage_;  // a usage member a chunk carried
  std::size_t dropped_arguments_ = 0;
};

}  // namespace modelgw::messages
