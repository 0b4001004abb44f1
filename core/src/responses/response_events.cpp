#include "responses/response_events.h"

#include "responses/response_object.h"
#include "util/json_write.h"

#include <chrono>

namespace modelgw::responses {

using nlohmann::json;

ResponseEventWriter::ResponseEventWriter(json echo, std::string request_id)
    : echo_(std::move(echo)), request_id_(std::move(request_id)) {}

void ResponseEventWriter::event(std::string_view type, json data, std::string& out) {
  data["type"] = type;
  data["sequence_number"] = sequence_++;
  data["request_id"] = request_id_;
  out.append("event: ").append(type).append("\ndata: ");
  util::append_json(out, data);
  out.append("\n\n");
}

json ResponseEventWriter::response(std::string_view status) const {
  json r = response_skeleton(echo_, request_id_, created_at_, model_, status);
  json& output = r["output"];
  for (const auto& item : items_) output.push_back(item_json(item));
  return r;
}

void ResponseEventWriter::stamp() {
  if (created_at_ != 0) return;
  created_at_ =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
}

void ResponseEventWriter::start(std::string& out) {
  if (started_) return;
  started_ = true;
  stamp();
  event("response.created", json{{"response", response("in_progress")}}, out);
  event("response.in_progress", json{{"response", response("in_progress")}}, out);
}

json ResponseEventWriter::item_json(const Item& item) const {
  const char* status = item.done ? "completed" : "in_progress";
  if (item.kind == Item::function_call) {
    json call{{"type", "function_call"},     {"id", item.id},
              {"call_id", item.call_id},     {"name", item.name},
              {"arguments", item.arguments}, {"status", status}};
    name_function_call(call, echo_);
    return call;
  }
  json content = json::array();
  // Done, or cut short (a failed response keeps what was streamed).
  if (item.done || !item.text.empty()) {
    content.push_back(
        item.refusal ? json{{"type", "refusal"}, {"refusal", item.text}}
                     : json{{"type", "output_text"}, {"text", item.text}, {"annotations", json::array()}});
  }
  return json{{"type", "message"},
              {"id", item.id},
              {"status", status},
              {"role", "assistant"},
              {"content", std::move(content)}};
}

ResponseEventWriter::Item& ResponseEventWriter::open_message(bool refusal, std::string& out) {
  if (message_) return items_[*message_];
  Item item;
  item.kind = Item::message;
  item.id = message_id(request_id_);
  item.output_index = items_.size();
  item.refusal = refusal;
  items_.push_back(std::move(item));
  message_ = items_.size() - 1;
  Item& m = items_.back();
  event("response.output_item.added", json{{"output_index", m.output_index}, {"item", item_json(m)}}, out);
  event("response.content_part.added",
        json{{"item_id", m.id},
             {"output_index", m.output_index},
             {"content_index", 0},
             {"part", refusal ? json{{"type", "refusal"}, {"refusal", ""}}
                              : json{{"type", "output_text"}, {"text", ""}, {"annotations", json::array()}}}},
        out);
  return m;
}

ResponseEventWriter::Item& ResponseEventWriter::open_call(std::int64_t index, const json& call,
                                                          std::string& out) {
  for (const auto& [i, at] : calls_) {
    if (i == index) return items_[at];
  }
  // A new call ends the message before it: items are streamed one at a time.
  if (message_) close(items_[*message_], out);
  Item item;
  item.kind = Item::function_call;
  item.id = function_call_id(request_id_, calls_.size());
  item.output_index = items_.size();
  item.call_id = string_member(call, "id");
  if (const auto f = call.find("function"); f != call.end() && f->is_object())
    item.name = string_member(*f, "name");
  items_.push_back(std::move(item));
  calls_.emplace_back(index, items_.size() - 1);
  Item& c = items_.back();
  event("response.output_item.added", json{{"output_index", c.output_index}, {"item", item_json(c)}}, out);
  return c;
}

void ResponseEventWriter::close(Item& item, std::string& out) {
  if (item.done) return;
  item.done = true;
  if (item.kind == Item::message) {
    if (item.refusal) {
      event("response.refusal.done",
            json{{"item_id", item.id},
                 {"output_index", item.output_index},
                 {"content_index", 0},
                 {"refusal", item.text}},
            out);
    } else {
      event("response.output_text.done",
            json{{"item_id", item.id},
                 {"output_index", item.output_index},
                 {"content_index", 0},
                 {"text", item.text},
                 {"logprobs", json::array()}},
            out);
    }
    event("response.content_part.done",
          json{{"item_id", item.id},
               {"output_index", item.output_index},
               {"content_index", 0},
               {"part", item_json(item)["content"][0]}},
          out);
    message_.reset();
  } else {
    event("response.function_call_arguments.done",
          json{{"item_id", item.id},
               {"output_index", item.output_index},
               {"name", item_json(item)["name"]},
               {"arguments", item.arguments}},
          out);
  }
  event("response.output_item.done", json{{"output_index", item.output_index}, {"item", item_json(item)}},
        out);
}

bool ResponseEventWriter::chunk(std::string_view chunk_json, std::string& out) {
  const json chunk = json::parse(chunk_json, nullptr, false);
  if (!chunk.is_object()) return false;
  if (ended_) return true;
  if (!started_) {
    if (const auto created = chunk.find("created"); created != chunk.end() && created->is_number_integer())
      created_at_ = created->get<std::int64_t>();
    if (const auto model = chunk.find("model"); model != chunk.end() && model->is_string())
      model_ = model->get<std::string>();
    start(out);
  }
  if (const auto usage = chunk.find("usage"); usage != chunk.end() && usage->is_object())
    chunk_usage_ = *usage;
  const auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array()) return true;
  for (const auto& choice : *choices) {
    // One output per response: the Responses API has no `n`.
    if (!choice.is_object() || int_member(choice, "index") != 0) continue;
    if (const auto delta = choice.find("delta"); delta != choice.end() && delta->is_object()) {
      for (const char* kind : {"content", "refusal"}) {
        const auto text = delta->find(kind);
        if (text == delta->end() || !text->is_string() || text->get_ref<const std::string&>().empty())
          continue;
        const bool refusal = std::string_view(kind) == "refusal";
        Item& m = open_message(refusal, out);
        m.text += text->get_ref<const std::string&>();
        event(refusal ? "response.refusal.delta" : "response.output_text.delta",
              refusal ? json{{"item_id", m.id},
                             {"output_index", m.output_index},
                             {"content_index", 0},
                             {"delta", *text}}
                      : json{{"item_id", m.id},
                             {"output_index", m.output_index},
                             {"content_index", 0},
                             {"delta", *text},
                             {"logprobs", json::array()}},
              out);
      }
      if (const auto calls = delta->find("tool_calls"); calls != delta->end() && calls->is_array()) {
        for (const auto& call : *calls) {
          if (!call.is_object()) continue;
          Item& c = open_call(int_member(call, "index"), call, out);
          const auto f = call.find("function");
          if (f == call.end() || !f->is_object()) continue;
          if (c.name.empty()) c.name = string_member(*f, "name");
          const auto args = f->find("arguments");
          if (args == f->end() || !args->is_string() || args->get_ref<const std::string&>().empty()) continue;
          c.arguments += args->get_ref<const std::string&>();
          event("response.function_call_arguments.delta",
                json{{"item_id", c.id}, {"output_index", c.output_index}, {"delta", *args}}, out);
        }
      }
    }
    if (const auto finish = choice.find("finish_reason"); finish != choice.end() && finish->is_string())
      finish_reason_ = finish->get<std::string>();
  }
  return true;
}

const json& ResponseEventWriter::final_response(const std::optional<StreamUsage>& usage) {
  if (final_) return *final_;
  // The stream's created_at, which the events before this one carry.
  stamp();
  json r = response_skeleton(echo_, request_id_, created_at_, model_, "completed");
  for (Item item : items_) {
    item.done = true;
    r["output"].push_back(item_json(item));
  }
  apply_finish_reason(r, finish_reason_);
  if (usage) {
    r["usage"] = responses_usage(usage->input, usage->output, usage->cached, usage->reasoning);
  } else if (!chunk_usage_.is_null()) {
    r["usage"] = responses_usage(chunk_usage_);
  }
  return final_.emplace(std::move(r));
}

void ResponseEventWriter::finish(const std::optional<StreamUsage>& usage, std::string& out) {
  if (ended_) return;
  start(out);
  for (auto& item : items_) close(item, out);
  ended_ = true;
  final_response(usage);  // unless the answer was kept, which built it already
  json r = std::move(*final_);
  final_.reset();
  const std::string type = r["status"] == "incomplete" ? "response.incomplete" : "response.completed";
  event(type, json{{"response", std::move(r)}}, out);
}

void ResponseEventWriter::fail(const errors::ApiError& error, std::string& out) {
  if (ended_) return;
  start(out);
  ended_ = true;
  json r = response("failed");
  // The items the client saw begin stay, with what they hold: incomplete.
  for (auto& item : r["output"]) {
    if (item["status"] == "in_progress") item["status"] = "incomplete";
  }
  r["error"] = json{{"code", error.code}, {"message", error.message}};
  event("response.failed", json{{"response", std::move(r)}}, out);
  event("error", error_event(error, request_id_), out);
}

json error_event(const errors::ApiError& error, std::string_view request_id) {
  // The spec's error form, as a typed event: clients that read `error`
  // members (the openai SDKs raise on them) see the envelope.
  const json param = error.param.empty() ? json(nullptr) : json(error.param);
  json envelope = {{"error",
                    {{"type", error.type()},
                     {"code", error.code},
                     {"message", error.message},
                     {"param", param},
                     {"request_id", request_id}}}};
  envelope["code"] = error.code;
  envelope["message"] = error.message;
  envelope["param"] = param;
  return envelope;
}

}  // namespace modelgw::responses
