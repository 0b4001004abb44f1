// Gemini's streamed response (SSE of GenerateContentResponse, alt=sse) →
// client chat.completion.chunk objects.
#pragma once

#include "candidate_mapper.h"
#include "provider_config.h"
#include "usage.h"

#include <modelgw/plugin.h>
#include <modelgw/provider/json.hpp>
#include <modelgw/provider/openai_chunk.hpp>
#include <modelgw/sdk.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace mgw::gemini {

using provider::Json;

// The state of one streamed response. Used by one thread at a time (ABI).
// Once it has reported an error it emits nothing more.
//
// Gemini sends no end marker: the body just ends. The answer is complete when
// every candidate seen carried a finishReason (or the prompt was blocked).
class StreamDecoder {
 public:
  // Copies what it needs from `call`, which is borrowed. `config` belongs to
  // the provider, which the host keeps until every call using it returned.
  StreamDecoder(const ProviderConfig& config, const mgw_call_context& call);

  // Decodes the next bytes, in whatever pieces they arrived.
  void feed(std::string_view bytes, const mgw_response_sink& out);
  // The vendor closed the body: usage and the final usage chunk, or an error
  // when the answer was cut short.
  void end(const mgw_response_sink& out);
  // Reports a 500 internal_error unless an error was already reported; used
  // when a hook caught an exception mid-stream.
  void fail_internal(const mgw_response_sink& out) noexcept;

 private:
  enum class State { open, ended, failed };

  // What the client has been told about one candidate (one choice).
  struct Choice {
    bool role_sent = false;
    int64_t tool_calls = 0;  // tool calls sent so far: the next one's index
    bool finished = false;
  };

  void on_event(const SseEvent& event, const mgw_response_sink& out);
  void on_response(const Json& doc, const mgw_response_sink& out);
  Json candidate_choice(const Json& candidate, std::size_t position);
  Json blocked_choice();
  void emit_chunk(Json choices, const mgw_response_sink& out);
  void fail(const mgw_response_sink& out, std::string message, bool retryable);
  bool complete() const;

  const ProviderConfig& config_;
  // id "chatcmpl-<responseId>", else "chatcmpl-<request_id>"; the alias as model.
  provider::ChunkEnvelope envelope_;
  int64_t host_prompt_tokens_;  // for the estimate when Gemini sends no usage

  SseDecoder sse_;
  State state_ = State::open;
  bool emitted_ = false;  // a chunk reached the host, so the client may have bytes
  std::map<int64_t, Choice> choices_;
  std::optional<Usage> usage_;       // from the latest usageMetadata
  std::size_t generated_bytes_ = 0;  // for the estimate
};

}  // namespace mgw::gemini
