#include "responses/native_answer.h"

#include "responses/response_events.h"
#include "responses/response_object.h"

namespace modelgw::responses {

using json = nlohmann::json;

namespace {

std::string dump(const json& doc) {
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

NativeAnswer::NativeAnswer(const json& echo, std::string request_id)
    : store_(echo.is_object() && echo.contains("store") ? echo["store"] : json(true)),
      previous_response_id_(echo.is_object() && echo.contains("previous_response_id")
                                ? echo["previous_response_id"]
                                : json(nullptr)),
      request_id_(std::move(request_id)),
      id_(response_id(request_id_)) {}

void NativeAnswer::own(json& response) const {
  response["id"] = id_;
  response["store"] = store_;
  response["previous_response_id"] = previous_response_id_;
}

std::optional<std::string> NativeAnswer::whole(std::string_view response_object) {
  json doc = json::parse(response_object, nullptr, false);
  if (!doc.is_object() || string_member(doc, "object") != "response") return std::nullopt;
  own(doc);
  final_ = dump(doc);
  doc["request_id"] = request_id_;
  return dump(doc);
}

void NativeAnswer::append(std::string_view type, json& data, std::string& out) {
  data["sequence_number"] = sequence_++;
  data["request_id"] = request_id_;
  out.append("event: ").append(type).append("\ndata: ").append(dump(data)).append("\n\n");
}

bool NativeAnswer::event(std::string_view data, std::string& out) {
  json doc = json::parse(data, nullptr, false);
  if (!doc.is_object()) return false;
  const std::string type = string_member(doc, "type");
  if (type.empty()) return false;
  if (const auto r = doc.find("response"); r != doc.end() && r->is_object()) {
    own(*r);
    last_response_ = *r;
    if (type == "response.completed" || type == "response.incomplete") final_ = dump(*r);
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
