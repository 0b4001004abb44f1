// The relay stage of a streamed answer: receives the chunks a provider
// plugin translates (through the ABI's response sink, synchronously inside
// its hook) and frames each as an SSE event in the call's answer; the caller
// flushes after every hook, so each upstream read reaches the client in one
// write. The response head goes out with the first chunk, so a failure before
// it can still be answered with a plain JSON error (or a retry, a fallback).
#pragma once

#include "chat/front_door.h"
#include "chat/plugin_sinks.h"
#include "chat/secret_redactor.h"
#include "http/server_call.h"

#include <modelgw/plugin.h>

#include <cstdint>
#include <optional>
#include <string>

namespace modelgw::chat {

class SseRelay {
 public:
  // `shaper`: another door's writer of the events (nullptr: chat's own
  // `data:` chunks and `data: [DONE]`).
  SseRelay(http::ServerCall& call, const SecretRedactor& redactor, AnswerShaper* shaper = nullptr);
  SseRelay(const SseRelay&) = delete;
  SseRelay& operator=(const SseRelay&) = delete;

  const mgw_response_sink* sink() const { return &sink_; }

  // Reports a failure. After the head: one final `data: {"error": ...}`
  // event (and the stream ends without [DONE]). Before it: nothing is sent;
  // the caller may retry, fall back, or answer error() as JSON.
  void fail(const errors::ApiError& error);
  // Ends a successful stream with `data: [DONE]`.
  void finish();

  // The plugin broke the ABI, or the host failed to take what it passed:
  // every later callback is a no-op (plugin_sinks.h); the caller fails the
  // stream with breach() after the hook returns.
  bool sink_failed() const { return state_.failed(); }
  const std::string& breach() const { return state_.breach; }

  bool head_sent() const { return head_sent_; }
  bool failed() const { return error_.has_value(); }
  const std::optional<errors::ApiError>& error() const { return error_; }
  const std::optional<mgw_usage>& usage() const { return usage_; }
  std::int64_t ttft_us() const { return ttft_us_; }
  // Bytes of generated text relayed so far (see generated_text.h).
  std::size_t generated_bytes() const { return generated_bytes_; }

 private:
  static void on_chunk(void* self, mgw_str json) noexcept;
  static void on_usage(void* self, const mgw_usage* usage) noexcept;
  static void on_error(void* self, const mgw_error_info* info) noexcept;
  static void on_body(void* self, mgw_str json) noexcept;
  void relay_chunk(std::string_view json);

  void open();
  void end();

  http::ServerCall& call_;
  const SecretRedactor& redactor_;
  AnswerShaper* shaper_;
  mgw_response_sink sink_{};
  SinkState state_;
  std::string frame_;  // reused for every event
  std::optional<errors::ApiError> error_;
  std::optional<mgw_usage> usage_;
  bool head_sent_ = false;
  bool done_ = false;
  std::int64_t ttft_us_ = -1;
  std::size_t generated_bytes_ = 0;
};

}  // namespace modelgw::chat
