#include "responses/native_answer.h"

#include "chat/answer_members.h"
#include "responses/response_events.h"
#include "responses/response_object.h"
#include "responses/responses_request.h"
#include "util/json_write.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace modelgw::responses {

using json = nlohmann::json;

namespace {

std::string_view value_of(const std::vector<mgw_json_member>& members, std::string_view name) {
  for (const auto& m : members) {
    if (std::string_view(m.name.ptr, m.name.len) == name) return {m.value.ptr, m.value.len};
  }
  return {};
}

// The members as an object's inside ("a":1,"b":2), leaving out `skip`.
void append_members(std::string& out, const std::vector<mgw_json_member>& members,
                    std::initializer_list<std::string_view> skip) {
  bool first = true;
  for (const auto& m : members) {
    const std::string_view name(m.name.ptr, m.name.len);
    bool skipped = false;
    for (auto s : skip) skipped = skipped || name == s;
    if (skipped) continue;
    if (!first) out += ',';
    first = false;
    out.append("\"").append(name).append("\":").append(m.value.ptr, m.value.len);
  }
}

const json kNoEcho = json::object();

// Each of echo_defaults() as a member written after another
// (,"name":value), in its order: most of a response's echo is these.
struct DefaultMember {
  std::string_view name;
  const json* value;
  std::string text;
};
const std::vector<DefaultMember>& default_members() {
  static const std::vector<DefaultMember> members = [] {
    std::vector<DefaultMember> out;
    for (const auto& [name, value] : echo_defaults().get_ref<const json::object_t&>()) {
      std::string text = ",\"" + name + "\":";
      util::append_json(text, value);
      out.push_back({name, &value, std::move(text)});
    }
    return out;
  }();
  return members;
}

}  // namespace

NativeAnswer::NativeAnswer(const json& echo, std::string request_id)
    : echo_(echo.is_object() ? &echo : &kNoEcho),
      store_(echo.is_object() && echo.contains("store") ? echo["store"] : json(true)),
      previous_response_id_(echo.is_object() && echo.contains("previous_response_id")
                                ? echo["previous_response_id"]
                                : json(nullptr)),
      request_id_(std::move(request_id)),
      id_(response_id(request_id_)) {
  owned_members_.reserve(id_.size() + 64);
  owned_members_.append("\"id\":\"").append(id_).append("\",\"store\":");
  util::append_json(owned_members_, store_);
  owned_members_.append(",\"previous_response_id\":");
  util::append_json(owned_members_, previous_response_id_);
}

void NativeAnswer::own(json& response) const {
  const auto& mine = echo_->get_ref<const json::object_t&>();
  for (const auto& [key, fallback] : echo_defaults().get_ref<const json::object_t&>()) {
    if (response.contains(key)) continue;
    const auto given = mine.find(key);
    response[key] = given != mine.end() ? given->second : fallback;
  }
  for (const auto& [key, value] : mine) {
    if (!response.contains(key)) response[key] = value;  // one without a default
  }
  response["id"] = id_;
  response["store"] = store_;
  response["previous_response_id"] = previous_response_id_;
}

void NativeAnswer::append_echo(std::string& out, const std::vector<mgw_json_member>& members) const {
  const auto& defaults = default_members();
  // Which defaults the vendor's object writes itself: a name is compared
  // only with the names of its length and first byte.
  std::uint64_t written = 0;
  const std::size_t marked = std::min<std::size_t>(defaults.size(), 64);
  for (const auto& m : members) {
    for (std::size_t i = 0; i < marked; ++i) {
      const std::string_view name = defaults[i].name;
      if (name.size() == m.name.len && name[0] == m.name.ptr[0] &&
          name == std::string_view(m.name.ptr, m.name.len))
        written |= std::uint64_t{1} << i;
    }
  }
  auto vendor_wrote = [&](std::string_view name) {
    return std::any_of(members.begin(), members.end(), [&](const mgw_json_member& m) {
      return std::string_view(m.name.ptr, m.name.len) == name;
    });
  };
  const auto& mine = echo_->get_ref<const json::object_t&>();
  for (std::size_t i = 0; i < defaults.size(); ++i) {
    const std::string_view name = defaults[i].name;
    if (name == "store" || name == "previous_response_id") continue;  // owned_members_
    if (i < marked ? (written & (std::uint64_t{1} << i)) != 0 : vendor_wrote(name)) continue;
    const auto given = mine.find(name);
    if (given == mine.end() || given->second == *defaults[i].value) {
      out.append(defaults[i].text);  // the request left it to its default
    } else {
      out.append(",\"").append(name).append("\":");
      util::append_json(out, given->second);
    }
  }
  // A member the echo holds without a default (none today) goes as given.
  for (const auto& [name, value] : mine) {
    if (name == "store" || name == "previous_response_id" || echo_defaults().contains(name) ||
        vendor_wrote(name))
      continue;
    out.append(",\"").append(name).append("\":");
    util::append_json(out, value);
  }
}

std::optional<std::string> NativeAnswer::whole(std::string_view response_object) {
  bool object = false;
  const auto members = chat::index_checked_object(response_object, object);
  if (!object) return std::nullopt;
  if (members) {
    if (value_of(*members, "object") != "\"response\"") return std::nullopt;
    // One allocation: the vendor's members, the owned ones and the echo.
    final_.reserve(response_object.size() + owned_members_.size() + 1024);
    final_.assign("{");
    append_members(final_, *members, {"id", "store", "previous_response_id", "request_id"});
    final_.append(final_.size() > 1 ? "," : "").append(owned_members_);
    append_echo(final_, *members);
    final_.append("}");
  } else {
    json doc = json::parse(response_object, nullptr, false);
    if (!doc.is_object() || string_member(doc, "object") != "response") return std::nullopt;
    doc.erase("request_id");
    own(doc);
    final_ = util::json_text(doc, response_object.size() + 512);
  }
  std::string body;
  body.reserve(final_.size() + request_id_.size() + 20);
  body.append("{\"request_id\":\"").append(request_id_).append("\",").append(final_, 1);
  return body;
}

void NativeAnswer::append(std::string_view type, json& data, std::string& out) {
  data["sequence_number"] = sequence_++;
  data["request_id"] = request_id_;
  out.append("event: ").append(type).append("\ndata: ");
  util::append_json(out, data);
  out.append("\n\n");
}

bool NativeAnswer::event(std::string_view data, std::string& out) {
  bool object = false;
  const auto members = chat::index_checked_object(data, object);
  if (!object) return false;
  // The data must be one line: whitespace between a vendor's tokens may be a
  // CR or LF, which would end the data: line; such an event is written
  // compact through the parse below.
  const bool one_line = data.find_first_of("\r\n") == std::string_view::npos;
  if (members && one_line && value_of(*members, "response").empty()) {
    // Most events (deltas, item and part events): renumbered by splicing.
    const std::string_view type = value_of(*members, "type");
    if (type.size() < 3 || type.front() != '"' || type.find('\\') != std::string_view::npos) return false;
    out.append("event: ").append(type.substr(1, type.size() - 2)).append("\ndata: {");
    append_members(out, *members, {"sequence_number", "request_id"});
    out.append(members->size() > 0 ? "," : "")
        .append("\"sequence_number\":")
        .append(std::to_string(sequence_++))
        .append(",\"request_id\":\"")
        .append(request_id_)
        .append("\"}\n\n");
    return true;
  }
  // An event that carries the response (created, in_progress, completed...):
  // its id, store and previous_response_id are the gateway's.
  json doc = json::parse(data, nullptr, false);
  if (!doc.is_object()) return false;
  const std::string type = string_member(doc, "type");
  // The type is written on the event: line, so no byte of it may end that line.
  if (type.empty() || type.find_first_of("\r\n") != std::string::npos) return false;
  if (const auto r = doc.find("response"); r != doc.end() && r->is_object()) {
    own(*r);
    last_response_ = *r;
    if (type == "response.completed" || type == "response.incomplete") final_ = util::json_text(*r);
  }
  append(type, doc, out);
  return true;
}

void NativeAnswer::fail(const errors::ApiError& error, std::string& out) {
  json r = last_response_.is_object() ? last_response_
                                      : json{{"id", id_}, {"object", "response"}, {"output", json::array()}};
  own(r);
  r["status"] = "failed";
  r["error"] = json{{"code", error.code}, {"message", error.message}};
  json failed{{"type", "response.failed"}, {"response", std::move(r)}};
  append("response.failed", failed, out);
  json envelope = error_event(error, request_id_);
  envelope["type"] = "error";
  append("error", envelope, out);
}

}  // namespace modelgw::responses
