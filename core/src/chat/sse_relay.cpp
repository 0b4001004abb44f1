#include "chat/sse_relay.h"

#include "chat/generated_text.h"
#include "chat/plugin_sinks.h"
#include "logging/request_log.h"

#include <modelgw/sdk.hpp>

namespace modelgw::chat {

SseRelay::SseRelay(http::ServerCall& call, const SecretRedactor& redactor, AnswerShaper* shaper)
    : call_(call), redactor_(redactor), shaper_(shaper) {
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

// The sink's entry points never unwind into the plugin (plugin_sinks.h).
void SseRelay::on_chunk(void* self, mgw_str json) noexcept {
  auto* r = static_cast<SseRelay*>(self);
  if (json.ptr == nullptr && json.len != 0) return r->state_.refuse("passed a chunk with a NULL pointer");
  r->state_.guard.run([&] { r->relay_chunk(mgw::view(json)); });
}

void SseRelay::relay_chunk(std::string_view json) {
  if (error_ || done_ || call_.client_gone()) return;
  if (shaper_ != nullptr) {
    frame_.clear();
    if (!shaper_->chunk(json, call_.request_id(), frame_)) {
      logging::for_request(call_.request_id())
          .error("provider plugin emitted a chunk that is not a JSON object");
      fail(errors::ApiError{
          502, "provider_failed", "the provider plugin produced an invalid stream event", {}});
      return;
    }
    generated_bytes_ += generated_text_bytes(json);
    if (frame_.empty()) return;  // nothing the door shows (a role-only delta)
    open();
    call_.append_chunk(frame_);
    return;
  }
  frame_.assign("data: ");
  if (!http::append_with_request_id(frame_, json, call_.request_id())) {
    logging::for_request(call_.request_id())
        .error("provider plugin emitted a chunk that is not a JSON object");
    fail(
        errors::ApiError{502, "provider_failed", "the provider plugin produced an invalid stream event", {}});
    return;
  }
  frame_.append("\n\n");
  generated_bytes_ += generated_text_bytes(json);
  open();
  call_.append_chunk(frame_);
}

void SseRelay::on_usage(void* self, const mgw_usage* usage) noexcept {
  auto* r = static_cast<SseRelay*>(self);
  if (!usage_size_ok(usage)) return r->state_.refuse("reported usage smaller than ABI 1.0 defines");
  r->state_.guard.run([&] { r->usage_ = mgw::copy_usage(usage); });
}

void SseRelay::on_error(void* self, const mgw_error_info* info) noexcept {
  auto* r = static_cast<SseRelay*>(self);
  if (!error_size_ok(info)) return r->state_.refuse("reported an error smaller than ABI 1.0 defines");
  r->state_.guard.run([&] { r->fail(to_api_error(*info)); });
}

void SseRelay::on_body(void* self, mgw_str /*json*/) noexcept {
  // A stream hook must emit chunks; a whole body here is a plugin bug.
  auto* r = static_cast<SseRelay*>(self);
  r->state_.guard.run([&] {
    r->fail(errors::ApiError{
        502, "provider_failed", "the provider plugin answered a stream with a whole body", {}});
  });
}

void SseRelay::fail(const errors::ApiError& error) {
  if (error_ || done_) return;
  error_ = error;
  error_->message = redactor_.redact(std::move(error_->message));
  if (!head_sent_ || call_.client_gone()) return;  // the caller retries or answers with JSON
  if (shaper_ != nullptr) {
    frame_.clear();
    shaper_->fail(*error_, call_.request_id(), frame_);
  } else {
    frame_.assign("data: ");
    frame_.append(errors::error_envelope(*error_, call_.request_id()));
    frame_.append("\n\n");
  }
  call_.append_chunk(frame_);
  end();
}

void SseRelay::finish() {
  if (error_ || done_ || call_.client_gone()) return;
  open();
  if (shaper_ != nullptr) {
    frame_.clear();
    shaper_->finish(usage_, call_.request_id(), frame_);
    call_.append_chunk(frame_);
  } else {
    call_.append_chunk("data: [DONE]\n\n");
  }
  end();
}

}  // namespace modelgw::chat
