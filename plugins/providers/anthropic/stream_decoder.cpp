#include "stream_decoder.h"

#include "error_mapper.h"
#include "stop_reason.h"
#include "vendor_error.h"

#include <array>
#include <utility>

namespace mgw::anthropic {

using namespace mgw::provider;
namespace {

// The events this decoder acts on. Anything else (ping, and event types added
// after this plugin was written) is skipped unread: forward compatible.
constexpr std::array<std::string_view, 7> kKnownEvents = {"message_start",
                                                          "content_block_start",
                                                          "content_block_delta",
                                                          "content_block_stop",
                                                          "message_delta",
                                                          "message_stop",
                                                          "error"};

bool is_known(std::string_view type) {
  for (auto k : kKnownEvents) {
    if (type == k) {
      return true;
    }
  }
  return false;
}

// Anthropic's block index, or -1 when absent (such a block cannot be a tool
// call, having no identity for its deltas).
int64_t block_index(const Json& data) {
  const Json* index = member(data, "index");
  return index != nullptr && index->is_number_integer() ? index->get<int64_t>() : -1;
}

}  // namespace

StreamDecoder::StreamDecoder(const ProviderConfig& config, const mgw_call_context& call)
    : config_(config),
      envelope_{"chatcmpl-" + std::string(view(call.request_id)), call.created_unix,
                std::string(view(call.alias))},
      host_prompt_tokens_(host_prompt_tokens(call)) {}

void StreamDecoder::feed(std::string_view bytes, const mgw_response_sink& out) {
  if (state_ != State::open) {
    return;  // after message_stop or an error nothing counts
  }
  sse_.feed(bytes, [&](const SseEvent& event) { on_event(event, out); });
  // The SSE decoder drops an over-long line; a lost event must not pass silently.
  if (state_ == State::open && sse_.overflowed()) {
    fail(out, "upstream sent a stream line longer than the gateway accepts", !emitted_);
  }
}

void StreamDecoder::end(const mgw_response_sink& out) {
  if (state_ == State::open) {
    // Not retryable: chunks may already have reached the client.
    fail(out, "upstream stream ended before it was complete", false);
  }
}

void StreamDecoder::fail_internal(const mgw_response_sink& out) noexcept {
  if (state_ == State::failed) {
    return;
  }
  state_ = State::failed;
  mgw::fail(&out, 500, kInternalError, "the anthropic provider plugin failed while decoding the stream", {},
            /*retryable=*/!emitted_);
}

void StreamDecoder::on_event(const SseEvent& event, const mgw_response_sink& out) {
  if (state_ != State::open) {
    return;  // the rest of a feed after message_stop or an error
  }
  // Anthropic names every event and repeats the name as data.type. A relay
  // that drops the `event:` lines leaves the default name "message": then the
  // data's type decides.
  std::string_view type = event.event;
  Json data;
  if (type == "message") {
    data = parse_bounded(event.data);
    type = string_member(data, "type");
  }
  if (!is_known(type)) {
    return;
  }
  if (data.is_null()) {
    data = parse_bounded(event.data);
  }
  if (type == "error") {
    on_error(data, out);  // reported even when the data is not JSON
    return;
  }
  if (!data.is_object()) {
    fail(out, "upstream sent an invalid stream event", !emitted_);
    return;
  }
  dispatch(type, data, out);
}

void StreamDecoder::dispatch(std::string_view type, const Json& data, const mgw_response_sink& out) {
  if (type == "message_start") {
    on_message_start(data, out);
  } else if (type == "content_block_start") {
    on_block_start(data, out);
  } else if (type == "content_block_delta") {
    on_block_delta(data, out);
  } else if (type == "content_block_stop") {
    on_block_stop(data, out);
  } else if (type == "message_delta") {
    on_message_delta(data, out);
  } else if (type == "message_stop") {
    on_message_stop(out);
  }
}

void StreamDecoder::on_message_start(const Json& data, const mgw_response_sink& out) {
  if (started_) {
    return;  // a repeated start would reopen a message the client already has
  }
  if (const Json* message = member(data, "message")) {
    if (auto id = string_member(*message, "id"); !id.empty()) {
      envelope_.id = "chatcmpl-" + std::string(id);  // OpenAI's id form; Anthropic's id inside it
    }
    if (const Json* usage = member(*message, "usage")) {
      tokens_.merge(*usage);
    }
  }
  start(out);
}

void StreamDecoder::on_block_start(const Json& data, const mgw_response_sink& out) {
  start(out);
  const Json* block = member(data, "content_block");
  if (block == nullptr) {
    return;
  }
  const std::string_view type = string_member(*block, "type");
  const int64_t index = block_index(data);
  if (type == "tool_use" && index >= 0 && tools_.count(index) == 0) {
    const int tool_index = static_cast<int>(tools_.size());
    tools_.emplace(index, ToolBlock{tool_index});
    // The input arrives as input_json_delta pieces; the block's own `input`
    // is a placeholder ({}) in a stream.
    emit_delta(Json{{"tool_calls",
                     Json::array({Json{
                         {"index", tool_index},
                         {"id", string_member(*block, "id")},
                         {"type", "function"},
                         {"function", {{"name", string_member(*block, "name")}, {"arguments", ""}}}}})}},
               out);
  } else if (type == "text") {
    if (auto text = string_member(*block, "text"); !text.empty()) {
      generated_bytes_ += text.size();
      emit_delta(Json{{"content", text}}, out);
    }
  }
  // thinking, redacted_thinking, server tools: nothing for a chat completion.
}

void StreamDecoder::on_block_delta(const Json& data, const mgw_response_sink& out) {
  start(out);
  const Json* delta = member(data, "delta");
  if (delta == nullptr) {
    return;
  }
  const std::string_view type = string_member(*delta, "type");
  if (type == "text_delta") {
    if (auto text = string_member(*delta, "text"); !text.empty()) {
      generated_bytes_ += text.size();
      emit_delta(Json{{"content", text}}, out);
    }
  } else if (type == "input_json_delta") {
    auto tool = tools_.find(block_index(data));
    const std::string_view piece = string_member(*delta, "partial_json");
    // Only a tool_use block's input is the client's: a server tool's is not.
    if (tool != tools_.end() && !piece.empty()) {
      tool->second.sent_arguments = true;
      generated_bytes_ += piece.size();
      emit_tool_arguments(tool->second.tool_index, piece, out);
    }
  }
  // thinking_delta, signature_delta, citations_delta and newer kinds: skipped.
}

void StreamDecoder::on_block_stop(const Json& data, const mgw_response_sink& out) {
  auto tool = tools_.find(block_index(data));
  // A tool without parameters streams no input at all; OpenAI clients parse
  // `arguments` as JSON, and "" is not, so such a call gets "{}".
  if (tool != tools_.end() && !tool->second.sent_arguments) {
    tool->second.sent_arguments = true;
    generated_bytes_ += 2;
    emit_tool_arguments(tool->second.tool_index, "{}", out);
  }
}

void StreamDecoder::on_message_delta(const Json& data, const mgw_response_sink& out) {
  start(out);
  if (const Json* usage = member(data, "usage")) {
    tokens_.merge(*usage);  // output_tokens here is the final, cumulative count
  }
  const Json* delta = member(data, "delta");
  const std::string_view stop = delta != nullptr ? string_member(*delta, "stop_reason") : std::string_view{};
  if (!stop.empty() && !finished_) {
    emit_finish(finish_reason(stop), out);
  }
}

void StreamDecoder::on_message_stop(const mgw_response_sink& out) {
  start(out);
  if (!finished_) {
    emit_finish("stop", out);  // the client always learns why the choice ended
  }
  state_ = State::done;
  const mgw_usage usage = reported_usage(tokens_, host_prompt_tokens_, generated_bytes_);
  if (out.callback_usage != nullptr) {
    out.callback_usage(out.host_data, &usage);
  }
  emit(envelope_.usage_chunk(usage_json(usage)), out);
}

void StreamDecoder::on_error(const Json& data, const mgw_response_sink& out) {
  const auto vendor = read_vendor_error(data);
  const bool transient = is_transient(vendor ? vendor->type : std::string_view{});
  // Retryable only while the client has nothing: a retry would repeat what it
  // already got.
  fail(out, with_vendor_message("upstream provider failed during the stream", data, config_.api_key),
       transient && !emitted_);
}

void StreamDecoder::start(const mgw_response_sink& out) {
  if (started_) {
    return;
  }
  started_ = true;
  emit_delta(Json{{"role", "assistant"}, {"content", ""}}, out);
}

void StreamDecoder::emit_delta(Json delta, const mgw_response_sink& out) {
  emit(envelope_.chunk(
           Json::array({Json{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", nullptr}}})),
       out);
}

void StreamDecoder::emit_finish(std::string_view reason, const mgw_response_sink& out) {
  finished_ = true;
  emit(envelope_.chunk(
           Json::array({Json{{"index", 0}, {"delta", Json::object()}, {"finish_reason", reason}}})),
       out);
}

void StreamDecoder::emit_tool_arguments(int tool_index, std::string_view arguments,
                                        const mgw_response_sink& out) {
  emit_delta(Json{{"tool_calls",
                   Json::array({Json{{"index", tool_index}, {"function", {{"arguments", arguments}}}}})}},
             out);
}

void StreamDecoder::emit(const Json& chunk, const mgw_response_sink& out) {
  const std::string bytes = dump(chunk);
  emitted_ = true;  // set first: from here on the client may have the chunk
  if (out.callback_chunk != nullptr) {
    out.callback_chunk(out.host_data, str(bytes));
  }
}

void StreamDecoder::fail(const mgw_response_sink& out, std::string message, bool retryable) {
  state_ = State::failed;
  emit_error(&out, provider_failed(std::move(message), retryable));
}

}  // namespace mgw::anthropic
