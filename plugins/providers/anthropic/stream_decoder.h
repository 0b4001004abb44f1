// Anthropic's streamed response (SSE of message events) → OpenAI chunks.
#pragma once

#include "provider_config.h"
#include "usage.h"

#include <modelgw/plugin.h>
#include <modelgw/provider/json.hpp>
#include <modelgw/provider/openai_chunk.hpp>
#include <modelgw/sdk.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace mgw::anthropic {

using provider::Json;

// The state of one streamed response. Used by one thread at a time (ABI).
// Once it has reported an error, or passed message_stop, it emits nothing more.
class StreamDecoder {
 public:
  // Copies what it needs from `call`, which is borrowed. `config` belongs to
  // the provider, which the host keeps until every call using it returned.
  StreamDecoder(const ProviderConfig& config, const mgw_call_context& call);

  // Decodes the next bytes, in whatever pieces they arrived.
  void feed(std::string_view bytes, const mgw_response_sink& out);
  // The vendor closed the body.
  void end(const mgw_response_sink& out);
  // Reports a 500 internal_error unless an error was already reported; used
  // when a hook caught an exception mid-stream.
  void fail_internal(const mgw_response_sink& out) noexcept;

 private:
  enum class State { open, done, failed };

  // A tool_use content block, by Anthropic's block index.
  struct ToolBlock {
    int tool_index;               // OpenAI's tool_calls[].index
    bool sent_arguments = false;  // a non-empty argument piece went out
  };

  void on_event(const SseEvent& event, const mgw_response_sink& out);
  void dispatch(std::string_view type, const Json& data, const mgw_response_sink& out);
  void on_message_start(const Json& data, const mgw_response_sink& out);
  void on_block_start(const Json& data, const mgw_response_sink& out);
  void on_block_delta(const Json& data, const mgw_response_sink& out);
  void on_block_stop(const Json& data, const mgw_response_sink& out);
  void on_message_delta(const Json& data, const mgw_response_sink& out);
  void on_message_stop(const mgw_response_sink& out);
  void on_error(const Json& data, const mgw_response_sink& out);

  // Emits the opening chunk (role "assistant") unless it went out already.
  void start(const mgw_response_sink& out);
  void emit_delta(Json delta, const mgw_response_sink& out);
  void emit_finish(std::string_view finish_reason, const mgw_response_sink& out);
  void emit_tool_arguments(int tool_index, std::string_view arguments, const mgw_response_sink& out);
  void emit(const Json& chunk, const mgw_response_sink& out);
  void fail(const mgw_response_sink& out, std::string message, bool retryable);

  const ProviderConfig& config_;
  // id "chatcmpl-<request_id>", then "chatcmpl-<Anthropic's message id>" once
  // message_start named it; the alias as model.
  provider::ChunkEnvelope envelope_;
  int64_t host_prompt_tokens_;

  SseDecoder sse_;
  State state_ = State::open;
  bool started_ = false;   // the opening chunk went out
  bool finished_ = false;  // a chunk with a finish_reason went out
  bool emitted_ = false;   // any chunk reached the host, so the client may have bytes
  TokenCounts tokens_;
  std::size_t generated_bytes_ = 0;  // for the estimate when usage is missing
  std::map<int64_t, ToolBlock> tools_;
};

}  // namespace mgw::anthropic
