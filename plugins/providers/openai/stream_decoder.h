// OpenAI's streamed response (SSE of chat.completion.chunk) → client chunks.
#pragma once

#include "provider_config.h"

#include <modelgw/plugin.h>
#include <modelgw/provider/json.hpp>
#include <modelgw/sdk.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mgw::openai {

// The state of one streamed response. Used by one thread at a time (ABI).
// Once it has reported an error it emits nothing more.
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

  void on_event(const SseEvent& event, const mgw_response_sink& out);
  void on_chunk(provider::Json& chunk, const mgw_response_sink& out);
  void fail(const mgw_response_sink& out, std::string message, bool retryable);
  void emit_usage_chunk(const mgw_usage& usage, const mgw_response_sink& out);

  const ProviderConfig& config_;
  std::string alias_;
  std::string fallback_id_;  // "chatcmpl-<request_id>" if the vendor named no id
  int64_t created_;
  int64_t host_prompt_tokens_;  // for the estimate when the vendor sends no usage

  SseDecoder sse_;
  State state_ = State::open;
  bool emitted_ = false;  // a chunk reached the host, so the client may have bytes
  bool saw_usage_ = false;
  std::size_t generated_bytes_ = 0;  // for the usage estimate
  std::string last_id_;
};

}  // namespace mgw::openai
