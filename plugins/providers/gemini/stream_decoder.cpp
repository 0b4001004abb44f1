#include "stream_decoder.h"

#include "error_mapper.h"
#include "vendor_error.h"

#include <utility>

namespace mgw::gemini {

using namespace mgw::provider;

StreamDecoder::StreamDecoder(const ProviderConfig& config, const mgw_call_context& call)
    : config_(config),
      envelope_{"chatcmpl-" + std::string(view(call.request_id)), call.created_unix,
                std::string(view(call.alias))},
      host_prompt_tokens_(host_prompt_tokens(call)) {}

void StreamDecoder::feed(std::string_view bytes, const mgw_response_sink& out) {
  if (state_ != State::open) {
    return;  // after an error nothing counts
  }
  sse_.feed(bytes, [&](const SseEvent& event) { on_event(event, out); });
  // The decoder drops a line over its limit; a lost event must not pass silently.
  if (state_ == State::open && sse_.overflowed()) {
    fail(out, "upstream sent a stream line longer than the gateway accepts", !emitted_);
  }
}

void StreamDecoder::end(const mgw_response_sink& out) {
  if (state_ != State::open) {
    return;  // failed, or end() already ran
  }
  if (!complete()) {
    // Not retryable: chunks may already have reached the client.
    fail(out, "upstream stream ended before it was complete", false);
    return;
  }
  state_ = State::ended;
  const Usage usage = usage_ ? *usage_ : estimate_usage(host_prompt_tokens_, generated_bytes_);
  if (out.callback_usage != nullptr) {
    out.callback_usage(out.host_data, &usage.counts);
  }
  if (out.callback_chunk != nullptr) {
    out.callback_chunk(out.host_data, str(dump(envelope_.usage_chunk(usage_json(usage)))));
  }
}

void StreamDecoder::fail_internal(const mgw_response_sink& out) noexcept {
  if (state_ == State::failed) {
    return;
  }
  state_ = State::failed;
  mgw::fail(&out, 500, kInternalError, "the gemini provider plugin failed while decoding the stream", {},
            /*retryable=*/!emitted_);
}

bool StreamDecoder::complete() const {
  if (choices_.empty()) {
    return false;
  }
  for (const auto& [index, choice] : choices_) {
    if (!choice.finished) {
      return false;
    }
  }
  return true;
}

void StreamDecoder::on_event(const SseEvent& event, const mgw_response_sink& out) {
  if (state_ != State::open) {
    return;  // ignore whatever follows an error
  }
  const Json doc = parse_bounded(event.data);
  if (doc.is_discarded()) {
    fail(out, "upstream sent an invalid stream event", !emitted_);
    return;
  }
  // Gemini reports a failure after the stream began as an event holding
  // {"error": {…}}; the HTTP status is already 200.
  if (read_vendor_error(doc)) {
    fail(out, with_vendor_message("upstream provider failed during the stream", doc, config_.api_key),
         !emitted_);
    return;
  }
  if (!doc.is_object()) {
    fail(out, "upstream sent an invalid stream event", !emitted_);
    return;
  }
  on_response(doc, out);
}

void StreamDecoder::on_response(const Json& doc, const mgw_response_sink& out) {
  if (const Json* metadata = member(doc, "usageMetadata"); metadata != nullptr && metadata->is_object()) {
    usage_ = read_usage(*metadata);  // counts grow event by event: the latest wins
  }
  if (const std::string_view response_id = string_member(doc, "responseId");
      !response_id.empty() && !emitted_) {
    envelope_.id = "chatcmpl-" + std::string(response_id);  // fixed once a chunk carried it
  }

  Json choices = Json::array();
  const Json* candidates = member(doc, "candidates");
  const Json* feedback = member(doc, "promptFeedback");
  if (candidates != nullptr && candidates->is_array() && !candidates->empty()) {
    std::size_t position = 0;
    for (const Json& candidate : *candidates) {
      if (candidate.is_object()) {
        choices.push_back(candidate_choice(candidate, position++));
      }
    }
  } else if (feedback != nullptr && !string_member(*feedback, "blockReason").empty()) {
    choices.push_back(blocked_choice());
  }
  // An event with neither (e.g. usage only) has nothing for the client.
  if (!choices.empty()) {
    emit_chunk(std::move(choices), out);
  }
}

Json StreamDecoder::candidate_choice(const Json& candidate, std::size_t position) {
  const int64_t index = candidate_index(candidate, position);
  Choice& state = choices_[index];
  const CandidateParts parts = read_parts(candidate);
  generated_bytes_ += parts.generated_bytes();

  Json delta = Json::object();
  if (!state.role_sent) {
    delta["role"] = "assistant";
    state.role_sent = true;
  }
  if (!parts.text.empty()) {
    delta["content"] = parts.text;
  }
  if (!parts.calls.empty()) {
    // Gemini sends each call whole, so each gets its own index and all of
    // its arguments at once; indexes run on across events, so a client
    // accumulating by index never merges two calls.
    Json calls = Json::array();
    for (const FunctionCall& c : parts.calls) {
      const int64_t k = state.tool_calls++;
      calls.push_back(tool_call_json(c, tool_call_id(c, index, k), k));
    }
    delta["tool_calls"] = std::move(calls);
  }

  Json choice = Json::object();
  choice["index"] = index;
  choice["delta"] = std::move(delta);
  const std::string_view reason = string_member(candidate, "finishReason");
  if (reason.empty()) {
    choice["finish_reason"] = nullptr;
  } else {
    choice["finish_reason"] = finish_reason(reason, state.tool_calls > 0);
    state.finished = true;
  }
  return choice;
}

Json StreamDecoder::blocked_choice() {
  Choice& state = choices_[0];
  Json delta = Json::object();
  if (!state.role_sent) {
    delta["role"] = "assistant";
    state.role_sent = true;
  }
  delta["content"] = nullptr;
  state.finished = true;  // a blocked prompt is a complete (empty) answer
  Json choice = Json::object();
  choice["index"] = 0;
  choice["delta"] = std::move(delta);
  choice["finish_reason"] = "content_filter";
  return choice;
}

void StreamDecoder::emit_chunk(Json choices, const mgw_response_sink& out) {
  std::string bytes = dump(envelope_.chunk(std::move(choices)));
  emitted_ = true;  // set first: from here on the client may have the chunk
  if (out.callback_chunk != nullptr) {
    out.callback_chunk(out.host_data, str(bytes));
  }
}

void StreamDecoder::fail(const mgw_response_sink& out, std::string message, bool retryable) {
  state_ = State::failed;
  emit_error(&out, provider_failed(std::move(message), retryable));
}

}  // namespace mgw::gemini
