#include "stream_decoder.h"

#include "error_mapper.h"
#include "usage.h"

#include <modelgw/provider/openai_chunk.hpp>

#include <utility>

namespace mgw::openai {

using namespace mgw::provider;

StreamDecoder::StreamDecoder(const ProviderConfig& config, const mgw_call_context& call)
    : config_(config),
      alias_(view(call.alias)),
      fallback_id_("chatcmpl-" + std::string(view(call.request_id))),
      created_(call.created_unix),
      host_prompt_tokens_(host_prompt_tokens(call)) {}

void StreamDecoder::feed(std::string_view bytes, const mgw_response_sink& out) {
  if (state_ != State::open) {
    return;  // after [DONE] or an error nothing counts
  }
  sse_.feed(bytes, [&](const SseEvent& event) { on_event(event, out); });
  // The decoder drops a line over its limit; a lost chunk must not pass silently.
  if (state_ == State::open && sse_.overflowed()) {
    fail(out, "upstream sent a stream line longer than the gateway accepts", !emitted_);
  }
}

void StreamDecoder::end(const mgw_response_sink& out) {
  if (state_ == State::failed) {
    return;
  }
  if (state_ != State::done) {
    // Not retryable: chunks may already have reached the client.
    fail(out, "upstream stream ended before it was complete", false);
    return;
  }
  if (!saw_usage_) {
    const mgw_usage usage = estimated_usage(host_prompt_tokens_, generated_bytes_);
    if (out.callback_usage != nullptr) {
      out.callback_usage(out.host_data, &usage);
    }
    emit_usage_chunk(usage, out);
    saw_usage_ = true;  // a second end() must not emit it again
  }
}

void StreamDecoder::fail_internal(const mgw_response_sink& out) noexcept {
  if (state_ == State::failed) {
    return;
  }
  state_ = State::failed;
  mgw::fail(&out, 500, kInternalError, "the openai provider plugin failed while decoding the stream", {},
            /*retryable=*/!emitted_);
}

void StreamDecoder::on_event(const SseEvent& event, const mgw_response_sink& out) {
  if (state_ != State::open) {
    return;  // ignore whatever follows [DONE] or an error
  }
  if (event.data == "[DONE]") {
    state_ = State::done;
    return;
  }
  Json doc = parse_bounded(event.data);
  if (event.event == "error") {
    // Some compatible servers name the event rather than send {"error": …}.
    fail(out, with_vendor_message("upstream provider failed during the stream", doc, config_.api_key),
         !emitted_);
    return;
  }
  if (!doc.is_object()) {
    fail(out, "upstream sent an invalid stream event", !emitted_);
    return;
  }
  if (auto err = doc.find("error"); err != doc.end() && !err->is_null()) {
    fail(out, with_vendor_message("upstream provider failed during the stream", doc, config_.api_key),
         !emitted_);
    return;
  }
  on_chunk(doc, out);
}

void StreamDecoder::on_chunk(Json& chunk, const mgw_response_sink& out) {
  chunk["model"] = alias_;
  chunk.erase("request_id");  // the host writes the gateway's own
  if (auto id = chunk.find("id"); id != chunk.end() && id->is_string()) {
    last_id_ = id->get_ref<const std::string&>();
  }
  if (auto created = chunk.find("created"); created != chunk.end() && created->is_number_integer()) {
    created_ = created->get<int64_t>();
  }
  if (auto u = chunk.find("usage"); u != chunk.end() && u->is_object()) {
    const mgw_usage usage = read_usage(*u);
    saw_usage_ = true;
    if (out.callback_usage != nullptr) {
      out.callback_usage(out.host_data, &usage);
    }
  }
  generated_bytes_ += choices_generated_bytes(chunk, "delta");
  std::string bytes = dump(chunk);
  emitted_ = true;  // set first: from here on the client may have the chunk
  if (out.callback_chunk != nullptr) {
    out.callback_chunk(out.host_data, str(bytes));
  }
}

void StreamDecoder::fail(const mgw_response_sink& out, std::string message, bool retryable) {
  state_ = State::failed;
  emit_error(&out, provider_failed(std::move(message), retryable));
}

void StreamDecoder::emit_usage_chunk(const mgw_usage& usage, const mgw_response_sink& out) {
  const ChunkEnvelope envelope{last_id_.empty() ? fallback_id_ : last_id_, created_, alias_};
  if (out.callback_chunk != nullptr) {
    out.callback_chunk(out.host_data, str(dump(envelope.usage_chunk(usage_json(usage)))));
  }
}

}  // namespace mgw::openai
