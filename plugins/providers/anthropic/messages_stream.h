// Anthropic's streamed Messages answer (ABI 1.11, operation "messages"): SSE
// of message events → one client chunk per event (its data object), or an
// error. The chat translation of the same events is stream_decoder.h's.
#pragma once

#include "provider_config.h"
#include "usage.h"

#include <modelgw/plugin.h>
#include <modelgw/provider/errors.hpp>
#include <modelgw/provider/json.hpp>
#include <modelgw/sdk.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mgw::anthropic {

// The error a stream's `error` event is for the client, by Anthropic's error
// type, so that a client of the Messages door sees the type Anthropic sent:
// overloaded_error → 503 provider_failed, rate_limit_error → 429
// rate_limit_exceeded, timeout_error → 504 provider_timeout, anything else
// 502 provider_failed. The message is "upstream provider failed during the
// stream: <vendor message, masked>". Retryable only when nothing reached the
// client yet (`emitted` false) and the type is transient.
provider::MappedError messages_stream_error(const provider::Json& data, std::string_view api_key,
                                            bool emitted);

// The state of one streamed Messages answer. Used by one thread at a time
// (ABI). Once it has reported an error, or passed message_stop, it emits
// nothing more.
class MessagesStreamDecoder {
 public:
  // Copies what it needs from `call`, which is borrowed.
  MessagesStreamDecoder(const ProviderConfig& config, const mgw_call_context& call);

  void feed(std::string_view bytes, const mgw_response_sink& out);
  void end(const mgw_response_sink& out);
  void fail_internal(const mgw_response_sink& out) noexcept;

 private:
  enum class State { open, done, failed };

  void on_event(const SseEvent& event, const mgw_response_sink& out);
  void on_message_stop(const provider::Json& data, const mgw_response_sink& out);
  void count_generated(std::string_view type, const provider::Json& data);
  void emit(const provider::Json& data, const mgw_response_sink& out);
  void fail(const mgw_response_sink& out, std::string message, bool retryable);

  const ProviderConfig& config_;
  std::string alias_;
  int64_t host_prompt_tokens_;  // for the estimate when the vendor sends no usage

  SseDecoder sse_;
  State state_ = State::open;
  bool emitted_ = false;  // a chunk reached the host, so the client may have bytes
  TokenCounts tokens_;
  std::size_t generated_bytes_ = 0;  // for the usage estimate
};

}  // namespace mgw::anthropic
