#include "messages/message_events.h"

#include "errors/anthropic_error.h"
#include "util/json_write.h"

#include <algorithm>

namespace modelgw::messages {

using nlohmann::json;

namespace {

std::string string_of(const json& object, const char* key) {
  if (!object.is_object()) return {};
  const auto v = object.find(key);
  return v != object.end() && v->is_string() ? v->get<std::string>() : std::string();
}

std::int64_t index_of(const json& object) {
  const auto v = object.find("index");
  return v != object.end() && v->is_number_integer() ? v->get<std::int64_t>() : 0;
}

// The non-empty string member `key` of `delta`, or nullptr.
const std::string* delta_text(const json& delta, const char* key) {
  const auto v = delta.find(key);
  if (v == delta.end() || !v->is_string() || v->get_ref<const std::string&>().empty()) return nullptr;
  return &v->get_ref<const std::string&>();
}

}  // namespace

MessageEventWriter::MessageEventWriter(std::string alias, std::string request_id)
    : alias_(std::move(alias)), request_id_(std::move(request_id)) {}

void MessageEventWriter::event(std::string_view type, const json& data, std::string& out) {
  out.append("event: ").append(type).append("\ndata: ");
  util::append_json(out, data);
  out.append("\n\n");
}

void MessageEventWriter::start(std::string& out) {
  if (started_) return;
  started_ = true;
  // Usage is known only at the end (the chain reads it after the last
  // choice); message_delta carries it whole.
  MessageUsage so_far;
  if (chunk_usage_.is_object()) so_far = usage_of_chat(chunk_usage_);
  json message{{"id", message_id(request_id_)},
               {"type", "message"},
               {"role", "assistant"},
               {"content", json::array()},
               {"model", alias_},
               {"stop_reason", nullptr},
               {"stop_sequence", nullptr},
               {"usage", anthropic_usage(so_far)}};
  event("message_start",
        json{{"type", "message_start"}, {"message", std::move(message)}, {"request_id", request_id_}}, out);
}

void MessageEventWriter::close(std::string& out) {
  if (open_ == Block::none) return;
  open_ = Block::none;
  open_call_ = -1;
  event("content_block_stop", json{{"type", "content_block_stop"}, {"index", index_}}, out);
}

void MessageEventWriter::open(Block kind, json content_block, std::string& out) {
  close(out);
  open_ = kind;
  ++index_;
  event("content_block_start",
        json{{"type", "content_block_start"}, {"index", index_}, {"content_block", std::move(content_block)}},
        out);
}

void MessageEventWriter::delta(json delta, std::string& out) {
  event("content_block_delta",
        json{{"type", "content_block_delta"}, {"index", index_}, {"delta", std::move(delta)}}, out);
}

bool MessageEventWriter::chunk(std::string_view chunk_json, std::string& out) {
  const json chunk = json::parse(chunk_json, nullptr, false);
  if (!chunk.is_object()) return false;
  if (ended_) return true;
  if (const auto usage = chunk.find("usage"); usage != chunk.end() && usage->is_object())
    chunk_usage_ = *usage;
  // The model that serves (a tier's): the chain names it in each chunk.
  if (const auto model = chunk.find("model"); !started_ && model != chunk.end() && model->is_string())
    alias_ = model->get<std::string>();
  start(out);
  const auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array()) return true;
  for (const auto& choice : *choices) {
    // One answer per message: Anthropic's API has no `n`.
    if (!choice.is_object() || index_of(choice) != 0) continue;
    if (const auto d = choice.find("delta"); d != choice.end() && d->is_object()) {
      if (const std::string* thinking = delta_text(*d, "reasoning_content")) {
        if (open_ != Block::thinking)
          open(Block::thinking, json{{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}, out);
        delta(json{{"type", "thinking_delta"}, {"thinking", *thinking}}, out);
      }
      for (const char* key : {"content", "refusal"}) {
        const std::string* text = delta_text(*d, key);
        if (text == nullptr) continue;
        if (open_ != Block::text) open(Block::text, json{{"type", "text"}, {"text", ""}}, out);
        delta(json{{"type", "text_delta"}, {"text", *text}}, out);
      }
      if (const auto calls = d->find("tool_calls"); calls != d->end() && calls->is_array()) {
        for (const auto& call : *calls) {
          if (!call.is_object()) continue;
          const std::int64_t at = index_of(call);
          const auto f = call.find("function");
          const bool has_function = f != call.end() && f->is_object();
          const std::string args = has_function ? string_of(*f, "arguments") : std::string();
          if (open_ != Block::tool_use || open_call_ != at) {
            if (std::find(calls_.begin(), calls_.end(), at) != calls_.end()) {
              dropped_arguments_ += args.empty() ? 0 : 1;
              continue;
            }
            std::string id = string_of(call, "id");
            if (id.empty()) id = tool_use_id(request_id_, calls_.size());
            calls_.push_back(at);
            open(Block::tool_use,
                 json{{"type", "tool_use"},
                      {"id", std::move(id)},
                      {"name", has_function ? string_of(*f, "name") : std::string()},
                      {"input", json::object()}},
                 out);
            open_call_ = at;
          }
          if (!args.empty()) delta(json{{"type", "input_json_delta"}, {"partial_json", args}}, out);
        }
      }
    }
    if (const auto finish = choice.find("finish_reason"); finish != choice.end() && finish->is_string())
      finish_reason_ = finish->get<std::string>();
  }
  return true;
}

void MessageEventWriter::finish(const std::optional<MessageUsage>& usage, std::string& out) {
  if (ended_) return;
  start(out);
  close(out);
  ended_ = true;
  MessageUsage counted;
  if (usage) {
    counted = *usage;
  } else if (chunk_usage_.is_object()) {
    counted = usage_of_chat(chunk_usage_);
  }
  // A provider that named no reason but called tools stopped for them.
  const std::string_view reason = finish_reason_.empty() && !calls_.empty() ? std::string_view("tool_use")
                                                                            : stop_reason_for(finish_reason_);
  event("message_delta",
        json{{"type", "message_delta"},
             {"delta", {{"stop_reason", reason}, {"stop_sequence", nullptr}}},
             {"usage", anthropic_usage(counted)}},
        out);
  event("message_stop", json{{"type", "message_stop"}}, out);
}

void MessageEventWriter::fail(const errors::ApiError& error, std::string& out) {
  if (ended_) return;
  ended_ = true;
  out.append("event: error\ndata: ")
      .append(errors::anthropic_error_event_data(error, request_id_))
      .append("\n\n");
}

}  // namespace modelgw::messages
