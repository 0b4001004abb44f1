#include "messages/native_answer.h"

#include "chat/answer_members.h"
#include "errors/anthropic_error.h"
#include "util/json_write.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace modelgw::messages {
namespace {

using nlohmann::json;

// The text of member `name` as written, or empty.
std::string_view written_value(const std::vector<mgw_json_member>& members, std::string_view name) {
  for (const auto& m : members) {
    if (std::string_view(m.name.ptr, m.name.len) == name) return {m.value.ptr, m.value.len};
  }
  return {};
}

// `object` (a JSON object's text, whose `members` these are) with
// "request_id" as its first member and any request_id it had left out.
std::string with_request_id(std::string_view object, const std::vector<mgw_json_member>& members,
                            std::string_view request_id) {
  std::string out;
  out.reserve(object.size() + request_id.size() + 20);
  out.append("{\"request_id\":\"").append(request_id).append("\"");
  for (const auto& m : members) {
    const std::string_view name(m.name.ptr, m.name.len);
    if (name == "request_id") continue;
    out.append(",\"").append(name).append("\":").append(m.value.ptr, m.value.len);
  }
  out.append("}");
  return out;
}

std::string parsed_with_request_id(std::string_view object, std::string_view request_id) {
  json doc = json::parse(object, nullptr, false);
  doc.erase("request_id");
  json out{{"request_id", request_id}};
  for (auto& [key, value] : doc.items()) out[key] = std::move(value);
  return util::json_text(out, object.size() + 40);
}

}  // namespace

std::optional<std::string> NativeMessageAnswer::whole(std::string_view message_object) const {
  bool object = false;
  const auto members = chat::index_checked_object(message_object, object);
  if (!object) return std::nullopt;
  if (members) {
    if (written_value(*members, "type") != "\"message\"") return std::nullopt;
    return with_request_id(message_object, *members, request_id_);
  }
  const json doc = json::parse(message_object, nullptr, false);
  const auto type = doc.find("type");
  if (type == doc.end() || !type->is_string() || *type != "message") return std::nullopt;
  return parsed_with_request_id(message_object, request_id_);
}

bool NativeMessageAnswer::event(std::string_view data, std::string& out) {
  bool object = false;
  const auto members = chat::index_checked_object(data, object);
  if (!object) return false;
  std::string type;
  if (members) {
    const std::string_view written = written_value(*members, "type");
    if (written.size() < 3 || written.front() != '"') return false;
    type.assign(written.substr(1, written.size() - 2));
  }
  // A type written with escapes, or keys the scan cannot index: read it parsed.
  if (!members || type.find('\\') != std::string::npos) {
    const json doc = json::parse(data, nullptr, false);
    const auto t = doc.find("type");
    if (t == doc.end() || !t->is_string()) return false;
    type = t->get<std::string>();
  }
  // The type is written on the event: line, so no byte of it may end that line.
  if (type.empty() || type.find_first_of("\r\n") != std::string::npos) return false;
  out.append("event: ").append(type).append("\ndata: ");
  // The data must be one line: a plugin writes compact JSON, but whitespace
  // between tokens may be a line break, which would end the data: line.
  const bool one_line = data.find_first_of("\r\n") == std::string_view::npos;
  if (type == "message_start") {
    out.append(one_line && members ? with_request_id(data, *members, request_id_)
                                   : parsed_with_request_id(data, request_id_));
  } else if (one_line) {
    out.append(data);
  } else {
    util::append_json(out, json::parse(data, nullptr, false));
  }
  out.append("\n\n");
  if (type == "message_stop") stopped_ = true;
  return true;
}

void NativeMessageAnswer::fail(const errors::ApiError& error, std::string& out) {
  if (stopped_) return;
  stopped_ = true;
  out.append("event: error\ndata: ")
      .append(errors::anthropic_error_event_data(error, request_id_))
      .append("\n\n");
}

}  // namespace modelgw::messages
