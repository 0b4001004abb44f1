#include "chat/stream_relay.h"

#include "chat/generated_text.h"
#include "chat/plugin_sinks.h"

#include <modelgw/sdk.hpp>

#include <spdlog/spdlog.h>

namespace modelgw::chat {

StreamRelay::StreamRelay(http::Call& call, const SecretRedactor& redactor)
    : call_(call), redactor_(redactor) {
  sink_.struct_size = sizeof sink_;
  sink_.host_data = this;
  sink_.callback_body = &StreamRelay::on_body;
  sink_.callback_chunk = &StreamRelay::on_chunk;
  sink_.callback_usage = &StreamRelay::on_usage;
  sink_.callback_error = &StreamRelay::on_error;
}

void StreamRelay::send_head() {
  auto& r = call_.response;
  r.setStatusAndReason(Poco::Net::HTTPResponse::HTTP_OK);
  r.setChunkedTransferEncoding(true);
  r.setContentType("text/event-stream; charset=utf-8");
  r.set("Cache-Control", "no-cache");
  r.set("X-Accel-Buffering", "no");  // tell reverse proxies not to buffer events
  r.set("X-Request-Id", call_.request_id);
  call_.status_sent = 200;
  out_ = &r.send();
}

void StreamRelay::write_frame() {
  out_->write(frame_.data(), static_cast<std::streamsize>(frame_.size()));
  out_->flush();  // one chunk on the wire per event: forwarded as it arrives
  if (!out_->good()) client_gone_ = true;
}

void StreamRelay::on_chunk(void* self, mgw_str json) {
  auto* r = static_cast<StreamRelay*>(self);
  if (r->error_ || r->client_gone_ || r->done_) return;
  r->frame_.assign("data: ");
  if (!http::append_with_request_id(r->frame_, mgw::view(json), r->call_.request_id)) {
    spdlog::error("request {}: provider plugin emitted a chunk that is not a JSON object",
                  r->call_.request_id);
    r->fail(
        http::ApiError{502, "provider_failed", "the provider plugin produced an invalid stream event", {}});
    return;
  }
  r->frame_.append("\n\n");
  r->generated_bytes_ += generated_text_bytes(mgw::view(json));
  if (!r->head_sent()) {
    r->send_head();
    r->ttft_us_ = r->call_.elapsed_us();
  }
  r->write_frame();
}

void StreamRelay::on_usage(void* self, const mgw_usage* usage) {
  static_cast<StreamRelay*>(self)->usage_ = mgw::copy_usage(usage);
}

void StreamRelay::on_error(void* self, const mgw_error_info* info) {
  static_cast<StreamRelay*>(self)->fail(to_api_error(*info));
}

void StreamRelay::on_body(void* self, mgw_str /*json*/) {
  // A stream hook must emit chunks; a whole body here is a plugin bug.
  static_cast<StreamRelay*>(self)->fail(
      http::ApiError{502, "provider_failed", "the provider plugin answered a stream with a whole body", {}});
}

void StreamRelay::fail(const http::ApiError& error) {
  if (error_ || done_) return;
  error_ = error;
  error_->message = redactor_.redact(std::move(error_->message));
  if (!head_sent() || client_gone_) return;  // the caller retries or answers with JSON
  frame_.assign("data: ");
  frame_.append(http::error_envelope(*error_, call_.request_id));
  frame_.append("\n\n");
  write_frame();
  done_ = true;
}

void StreamRelay::finish() {
  if (error_ || done_ || client_gone_) return;
  if (!head_sent()) {
    send_head();
    ttft_us_ = call_.elapsed_us();
  }
  frame_.assign("data: [DONE]\n\n");
  write_frame();
  done_ = true;
}

}  // namespace modelgw::chat
