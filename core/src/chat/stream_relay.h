// The host side of a streamed response: receives the chunks a provider plugin
// translates and writes each to the client as an SSE event at once. The
// response head is sent with the first chunk, so a failure before that can
// still be answered with a plain JSON error (and, later, a fallback).
#pragma once

#include "chat/secret_redactor.h"
#include "http/call.h"

#include <modelgw/plugin.h>

#include <chrono>
#include <optional>
#include <ostream>
#include <string>

namespace modelgw::chat {

class StreamRelay {
 public:
  StreamRelay(http::Call& call, const SecretRedactor& redactor);
  StreamRelay(const StreamRelay&) = delete;
  StreamRelay& operator=(const StreamRelay&) = delete;

  const mgw_response_sink* sink() const { return &sink_; }

  // Reports a failure. After the head: one final `data: {"error": ...}`
  // event. Before it: nothing is sent; the caller may retry, fall back, or
  // answer error() as JSON. Later chunks are ignored.
  void fail(const http::ApiError& error);
  // Ends a successful stream with `data: [DONE]`.
  void finish();

  bool head_sent() const { return out_ != nullptr; }
  bool failed() const { return error_.has_value(); }
  bool client_gone() const { return client_gone_; }
  const std::optional<http::ApiError>& error() const { return error_; }
  const std::optional<mgw_usage>& usage() const { return usage_; }
  std::int64_t ttft_us() const { return ttft_us_; }
  // Bytes of generated text relayed so far (see generated_text.h).
  std::size_t generated_bytes() const { return generated_bytes_; }

 private:
  static void on_chunk(void* self, mgw_str json);
  static void on_usage(void* self, const mgw_usage* usage);
  static void on_error(void* self, const mgw_error_info* info);
  static void on_body(void* self, mgw_str json);

  void send_head();
  void write_frame();

  http::Call& call_;
  const SecretRedactor& redactor_;
  mgw_response_sink sink_{};
  std::ostream* out_ = nullptr;
  std::string frame_;  // reused for every event
  std::optional<http::ApiError> error_;
  std::optional<mgw_usage> usage_;
  bool client_gone_ = false;
  bool done_ = false;
  std::int64_t ttft_us_ = -1;
  std::size_t generated_bytes_ = 0;
};

}  // namespace modelgw::chat
