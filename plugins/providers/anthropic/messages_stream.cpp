#include "messages_stream.h"

#include "error_mapper.h"
#include "vendor_error.h"

#include <modelgw/provider/openai_chunk.hpp>
#include <modelgw/provider/secret_mask.hpp>

#include <utility>

namespace mgw::anthropic {

using namespace mgw::provider;

namespace {

constexpr std::string_view kNativeStreamFailed = "upstream provider failed during the stream";

}  // namespace

MappedError messages_stream_error(const Json& data, std::string_view api_key, bool emitted) {
  const auto vendor = read_vendor_error(data);
  const std::string_view type = vendor ? vendor->type : std::string_view{};
  const bool retryable = is_transient(type) && !emitted;
  MappedError e =
      provider_failed(with_vendor_message(std::string(kNativeStreamFailed), data, api_key), retryable);
  if (type == "overloaded_error") {
    e.http_status = 503;
  } else if (type == "rate_limit_error") {
    e.http_status = 429;
    e.code = kRateLimitExceeded;
  } else if (type == "timeout_error") {
    e.http_status = 504;
    e.code = kProviderTimeout;
  }
  return e;
}

MessagesStreamDecoder::MessagesStreamDecoder(const ProviderConfig& config, const mgw_call_context& call)
    : config_(config), alias_(view(call.alias)), host_prompt_tokens_(host_prompt_tokens(call)) {}

void MessagesStreamDecoder::feed(std::string_view bytes, const mgw_response_sink& out) {
  if (state_ != State::open) {
    return;  // after message_stop or an error nothing counts
  }
  sse_.feed(bytes, [&](const SseEvent& event) { on_event(event, out); });
  // The SSE decoder drops an over-long line; a lost event must not pass silently.
  if (state_ == State::open && sse_.overflowed()) {
    fail(out, "upstream sent a stream line longer than the gateway accepts", !emitted_);
  }
}

void MessagesStreamDecoder::end(const mgw_response_sink& out) {
  if (state_ == State::open) {
    // Not retryable: events may already have reached the client.
    fail(out, "upstream stream ended before it was complete", false);
  }
}

void MessagesStreamDecoder::fail_internal(const mgw_response_sink& out) noexcept {
  if (state_ == State::failed) {
    return;
  }
  state_ = State::failed;
  mgw::fail(&out, 500, kInternalError, "the anthropic provider plugin failed while decoding the stream", {},
            /*retryable=*/!emitted_);
}

void MessagesStreamDecoder::on_event(const SseEvent& event, const mgw_response_sink& out) {
  if (state_ != State::open) {
    return;  // the rest of a feed after message_stop or an error
  }
  Json data = parse_bounded(event.data);
  if (!data.is_object()) {
    if (event.event == "error") {
      // Reported as the vendor's failure even when its data is not JSON.
      state_ = State::failed;
      emit_error(&out, messages_stream_error(Json::object(), config_.api_key, emitted_));
      return;
    }
    fail(out, "upstream sent an invalid stream event", !emitted_);
    return;
  }
  // Anthropic repeats the event's name as data.type; a relay may drop the
  // `event:` lines (the name is then "message") or, in theory, the type.
  if (!data.contains("type") && event.event != "message") {
    data["type"] = event.event;
  }
  const Json* type_member = member(data, "type");
  if (type_member == nullptr || !type_member->is_string()) {
    fail(out, "upstream sent an invalid stream event", !emitted_);
    return;
  }
  const std::string type = type_member->get<std::string>();
  if (type == "error") {
    state_ = State::failed;
    emit_error(&out, messages_stream_error(data, config_.api_key, emitted_));
    return;
  }
  data.erase("request_id");  // the host writes the gateway's own
  if (type == "message_start") {
    if (Json* message = data.contains("message") ? &data["message"] : nullptr;
        message != nullptr && message->is_object()) {
      (*message)["model"] = alias_;
      (*message).erase("request_id");
      if (const Json* usage = member(*message, "usage")) {
        tokens_.merge(*usage);
      }
    }
  } else if (type == "message_delta") {
    if (const Json* usage = member(data, "usage")) {
      tokens_.merge(*usage);  // output_tokens here is the final, cumulative count
    }
  } else if (type == "message_stop") {
    on_message_stop(data, out);
    return;
  }
  count_generated(type, data);
  emit(data, out);  // ping, content blocks, deltas and event types added later alike
}

void MessagesStreamDecoder::count_generated(std::string_view type, const Json& data) {
  if (type != "content_block_delta") {
    return;
  }
  const Json* delta = member(data, "delta");
  if (delta == nullptr) {
    return;
  }
  for (std::string_view field : {"text", "partial_json", "thinking"}) {
    generated_bytes_ += string_member(*delta, field).size();
  }
}

void MessagesStreamDecoder::on_message_stop(const Json& data, const mgw_response_sink& out) {
  state_ = State::done;
  const mgw_usage usage = reported_usage(tokens_, host_prompt_tokens_, generated_bytes_);
  if (out.callback_usage != nullptr) {
    out.callback_usage(out.host_data, &usage);
  }
  emit(data, out);
}

void MessagesStreamDecoder::emit(const Json& data, const mgw_response_sink& out) {
  const std::string bytes = dump(data);
  emitted_ = true;  // set first: from here on the client may have the event
  if (out.callback_chunk != nullptr) {
    out.callback_chunk(out.host_data, str(bytes));
  }
}

void MessagesStreamDecoder::fail(const mgw_response_sink& out, std::string message, bool retryable) {
  state_ = State::failed;
  emit_error(&out, provider_failed(std::move(message), retryable));
}

}  // namespace mgw::anthropic
