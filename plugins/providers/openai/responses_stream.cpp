#include "responses_stream.h"

#include "error_mapper.h"
#include "responses_response.h"
#include "usage.h"
#include "vendor_error.h"

#include <modelgw/provider/openai_chunk.hpp>
#include <modelgw/provider/secret_mask.hpp>

#include <utility>

namespace mgw::openai {

using namespace mgw::provider;

namespace {

constexpr std::string_view kFailedPrefix = "upstream provider failed during the stream";

// Events whose "delta" is generated text: what the estimate counts.
bool is_generated_delta(std::string_view type) {
  return type == "response.output_text.delta" || type == "response.refusal.delta" ||
         type == "response.function_call_arguments.delta";
}

}  // namespace

ResponsesStreamDecoder::ResponsesStreamDecoder(const ProviderConfig& config, const mgw_call_context& call)
    : config_(config), alias_(view(call.alias)), host_prompt_tokens_(host_prompt_tokens(call)) {}

void ResponsesStreamDecoder::feed(std::string_view bytes, const mgw_response_sink& out) {
  if (state_ != State::open) {
    return;  // after the terminal event or an error nothing counts
  }
  sse_.feed(bytes, [&](const SseEvent& event) { on_event(event, out); });
  if (state_ == State::open && sse_.overflowed()) {
    fail(out, "upstream sent a stream line longer than the gateway accepts", !emitted_);
  }
}

void ResponsesStreamDecoder::end(const mgw_response_sink& out) {
  if (state_ == State::open) {
    // Not retryable: events may already have reached the client.
    fail(out, "upstream stream ended before it was complete", false);
  }
}

void ResponsesStreamDecoder::fail_internal(const mgw_response_sink& out) noexcept {
  if (state_ == State::failed) {
    return;
  }
  state_ = State::failed;
  mgw::fail(&out, 500, kInternalError, "the openai provider plugin failed while decoding the stream", {},
            /*retryable=*/!emitted_);
}

void ResponsesStreamDecoder::on_event(const SseEvent& event, const mgw_response_sink& out) {
  if (state_ != State::open) {
    return;
  }
  if (event.data == "[DONE]") {
    return;  // not part of this API; a stream needs its terminal event all the same
  }
  Json doc = parse_bounded(event.data);
  if (!doc.is_object()) {
    fail(out, "upstream sent an invalid stream event", !emitted_);
    return;
  }
  const std::string type(string_member(doc, "type"));
  if (type == "error" || (type.empty() && (event.event == "error" || member(doc, "error") != nullptr))) {
    on_error_event(doc, out);
    return;
  }
  if (type.empty()) {
    fail(out, "upstream sent an invalid stream event", !emitted_);
    return;
  }
  if (Json* response = doc.contains("response") ? &doc["response"] : nullptr;
      response != nullptr && response->is_object()) {
    (*response)["model"] = alias_;
  }
  doc.erase("request_id");  // the host writes the gateway's own
  if (type == "response.failed") {
    const Json* response = member(doc, "response");
    emit_error(&out, failed_response_error(std::string(kFailedPrefix), response != nullptr ? *response : doc,
                                           config_.api_key, !emitted_));
    state_ = State::failed;
    return;
  }
  if (type == "response.completed" || type == "response.incomplete") {
    on_terminal(doc, out);
    return;
  }
  if (is_generated_delta(type)) {
    generated_bytes_ += string_member(doc, "delta").size();
  }
  emit(doc, out);
}

void ResponsesStreamDecoder::on_error_event(const Json& doc, const mgw_response_sink& out) {
  // OpenAI's {"type":"error","code","message","param"}, or a compatible
  // server's {"error": {...}}.
  const std::optional<VendorError> vendor = read_vendor_error(doc);
  const bool rate_limited =
      vendor && (vendor->code == "rate_limit_exceeded" || vendor->type == "rate_limit_exceeded");
  std::string message(kFailedPrefix);
  if (vendor && !vendor->message.empty()) {
    message += ": ";
    message += vendor_text(vendor->message, config_.api_key);
  }
  state_ = State::failed;
  if (rate_limited) {
    mgw::fail(&out, 429, kRateLimitExceeded, message, {}, /*retryable=*/!emitted_);
    return;
  }
  emit_error(&out, provider_failed(std::move(message), !emitted_));
}

void ResponsesStreamDecoder::on_terminal(Json& doc, const mgw_response_sink& out) {
  mgw_usage usage{};
  Json* response = doc.contains("response") ? &doc["response"] : nullptr;
  if (response == nullptr || !response->is_object()) {
    fail(out, "upstream sent an invalid stream event", !emitted_);
    return;
  }
  if (const Json* u = member(*response, "usage"); u != nullptr && u->is_object()) {
    usage = read_responses_usage(*u);
  } else {
    usage = estimated_usage(host_prompt_tokens_, generated_bytes_);
    (*response)["usage"] = responses_usage_json(usage);
  }
  state_ = State::done;
  if (out.callback_usage != nullptr) {
    out.callback_usage(out.host_data, &usage);
  }
  emit(doc, out);
}

void ResponsesStreamDecoder::emit(const Json& doc, const mgw_response_sink& out) {
  std::string bytes = dump(doc);
  emitted_ = true;  // set first: from here on the client may have the event
  if (out.callback_chunk != nullptr) {
    out.callback_chunk(out.host_data, str(bytes));
  }
}

void ResponsesStreamDecoder::fail(const mgw_response_sink& out, std::string message, bool retryable) {
  state_ = State::failed;
  emit_error(&out, provider_failed(std::move(message), retryable));
}

}  // namespace mgw::openai
