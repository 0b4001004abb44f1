#include "chat/sse_relay.h"

#include "chat/generated_text.h"
#include "chat/plugin_sinks.h"

#include <modelgw/sdk.hpp>

#include <spdlog/spdlog.h>

namespace modelgw::chat {

SseRelay::SseRelay(http::ServerCall& call, const SecretRedactor& redactor)
    : call_(call), redactor_(redactor) {
  sink_.struct_size = sizeof sink_;
  sink_.host_data = this;
  sink_.callback_body = &SseRelay::on_body;
  sink_.callback_chunk = &SseRelay::on_chunk;
  sink_.callback_usage = &SseRelay::on_usage;
  sink_.callback_error = &SseRelay::on_error;
}

void SseRelay::open() {
  if (head_sent_) return;
  call_.start_event_stream();
  head_sent_ = true;
  ttft_us_ = call_.elapsed_us();
}

void SseRelay::end() {
  call_.end_chunks();
  done_ = true;
}

void SseRelay::on_chunk(void* self, mgw_str json) {
  auto* r = static_cast<SseRelay*>(self);
  if (r->error_ || r->done_ || r->call_.client_gone()) return;
  r->frame_.assign("data: ");
  if (!http::append_with_request_id(r->frame_, mgw::view(json), r->call_.request_id())) {
    spdlog::error("request {}: provider plugin emitted a chunk that is not a JSON object",
                  r->call_.request_id());
    r->fail(
        http::ApiError{502, "provider_failed", "the provider plugin produced an invalid stream event", {}});
    return;
  }
  r->frame_.append("\n\n");
  r->generated_bytes_ += generated_text_bytes(mgw::view(json));
  r->open();
  r->call_.append_chunk(r->frame_);
}

void SseRelay::on_usage(void* self, const mgw_usage* usage) {
  static_cast<SseRelay*>(self)->usage_ = mgw::copy_usage(usage);
}

void SseRelay::on_error(void* self, const mgw_error_info* info) {
  static_cast<SseRelay*>(self)->fail(to_api_error(*info));
}

void SseRelay::on_body(void* self, mgw_str /*json*/) {
  // A stream hook must emit chunks; a whole body here is a plugin bug.
  static_cast<SseRelay*>(self)->fail(
      http::ApiError{502, "provider_failed", "the provider plugin answered a stream with a whole body", {}});
}

void SseRelay::fail(const http::ApiError& error) {
  if (error_ || done_) return;
  error_ = error;
  error_->message = redactor_.redact(std::move(error_->message));
  if (!head_sent_ || call_.client_gone()) return;  // the caller retries or answers with JSON
  frame_.assign("data: ");
  frame_.append(http::error_envelope(*error_, call_.request_id()));
  frame_.append("\n\n");
  call_.append_chunk(frame_);
  end();
}

void SseRelay::finish() {
  if (error_ || done_ || call_.client_gone()) return;
  open();
  call_.append_chunk("data: [DONE]\n\n");
  end();
}

}  // namespace modelgw::chat
