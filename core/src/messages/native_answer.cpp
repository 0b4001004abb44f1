#include "messages/native_answer.h"

#include "chat/body_members.h"
#include "errors/anthropic_error.h"
#include "util/json_dom.h"
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

bool is_json_object(std::string_view text) {
  const auto open = text.find_first_not_of(" \t\r\n");
  return open != std::string_view::npos && text[open] == '{' && util::is_json(text);
}

// `object` (a JSON object's text) with "request_id" as its first member and
// any request_id it had left out; nullopt when its members cannot be read
// by a scan (an escaped or repeated key: the caller parses it instead).
std::optional<std::string> with_request_id(std::string_view object, std::string_view request_id) {
  const auto members = chat::index_members(object);
  if (!members) return std::nullopt;
  std::string out;
  out.reserve(object.size() + request_id.size() + 20);
  out.append("{\"request_id\":\"").append(request_id).append("\"");
  for (const auto& m : *members) {
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
  if (!is_json_object(message_object)) return std::nullopt;
  if (const auto members = chat::index_members(message_object)) {
    if (written_value(*members, "type") != "\"message\"") return std::nullopt;
    return with_request_id(message_object, request_id_);
  }
  const json doc = json::parse(message_object, nullptr, false);
  const auto type = doc.find("type");
  if (type == doc.end() || !type->is_string() || *type != "message") return std::nullopt;
  return parsed_with_request_id(message_object, request_id_);
}

bool NativeMessageAnswer::event(std::string_view data, std::string& out) {
  if (!is_json_object(data)) return false;
  std::string type;
  const auto members = chat::index_members(data);
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
    std::optional<std::string> spliced;
    if (one_line) spliced = with_request_id(data, request_id_);
    out.append(spliced ? *spliced : parsed_with_request_id(data, request_id_));
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
