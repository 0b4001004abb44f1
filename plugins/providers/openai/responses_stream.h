// OpenAI's streamed Responses answer (ABI 1.10, operation "responses"): SSE
// of typed events → one client chunk per event, or an error.
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

// The state of one streamed Responses answer. Used by one thread at a time
// (ABI). Once it has reported an error, or passed the terminal event, it
// emits nothing more.
class ResponsesStreamDecoder {
 public:
  // Copies what it needs from `call`, which is borrowed.
  ResponsesStreamDecoder(const ProviderConfig& config, const mgw_call_context& call);

  void feed(std::string_view bytes, const mgw_response_sink& out);
  void end(const mgw_response_sink& out);
  void fail_internal(const mgw_response_sink& out) noexcept;

 private:
  enum class State { open, done, failed };

  void on_event(const SseEvent& event, const mgw_response_sink& out);
  void on_error_event(const provider::Json& doc, const mgw_response_sink& out);
  void on_terminal(provider::Json& doc, const mgw_response_sink& out);
  void emit(const provider::Json& doc, const mgw_response_sink& out);
  void fail(const mgw_response_sink& out, std::string message, bool retryable);

  const ProviderConfig& config_;
  std::string alias_;
  int64_t host_prompt_tokens_;  // for the estimate when the vendor sends no usage

  SseDecoder sse_;
  State state_ = State::open;
  bool emitted_ = false;             // a chunk reached the host, so the client may have bytes
  std::size_t generated_bytes_ = 0;  // for the usage estimate
};

}  // namespace mgw::openai
