#include "chat/chat_request.h"

#include "util/json_depth.h"

#include <nlohmann/json.hpp>

#include <array>

namespace modelgw::chat {
namespace {

using http::ApiError;
using http::bad_request;

constexpr std::array<std::string_view, 6> kRoles = {"system",    "developer", "user",
                                                    "assistant", "tool",      "function"};

std::string type_name(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

std::optional<ApiError> check_message(const nlohmann::json& m, std::size_t i) {
  const std::string at = "messages[" + std::to_string(i) + "]";
  if (!m.is_object()) {
    return bad_request("invalid_parameter",
                       at + " must be an object with role and content, not " + type_name(m), at);
  }
  auto role = m.find("role");
  if (role == m.end()) {
    return bad_request("missing_required_field", at + ".role is required", at + ".role");
  }
  if (!role->is_string()) {
    return bad_request("invalid_parameter", at + ".role must be a string, not " + type_name(*role),
                       at + ".role");
  }
  const auto& r = role->get_ref<const std::string&>();
  bool known = false;
  for (auto k : kRoles) known = known || r == k;
  if (!known) {
    return bad_request(
        "invalid_parameter",
        at + ".role '" + r + "' is not one of system, developer, user, assistant, tool, function",
        at + ".role");
  }
  auto content = m.find("content");
  if (content != m.end() && !(content->is_string() || content->is_array() || content->is_null())) {
    return bad_request(
        "invalid_parameter",
        at + ".content must be a string or an array of content parts, not " + type_name(*content),
        at + ".content");
  }
  return std::nullopt;
}

}  // namespace

std::variant<nlohmann::json, ApiError> parse_json_object(std::string_view body) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return bad_request("invalid_json",
                       "the request body is empty; send a JSON object with model and messages");
  }
  if (util::json_nesting_depth(body, kMaxJsonDepth) > kMaxJsonDepth) {
    return bad_request("invalid_json", "the request body nests arrays/objects deeper than " +
                                           std::to_string(kMaxJsonDepth) + " levels");
  }
  nlohmann::json doc = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    // Re-parse only on the error path, to get the position for the message.
    std::string detail;
    try {
      auto ignored = nlohmann::json::parse(body);
      (void)ignored;
    } catch (const nlohmann::json::parse_error& e) {
      detail = " (byte " + std::to_string(e.byte) + ")";
    }
    return bad_request("invalid_json", "the request body is not valid JSON" + detail);
  }
  if (!doc.is_object()) {
    return bad_request("invalid_json", "the request body must be a JSON object, not " + type_name(doc));
  }
  return doc;
}

std::variant<ChatRequest, ApiError> parse_chat_request(std::string_view body) {
  auto doc = parse_json_object(body);
  if (auto* err = std::get_if<ApiError>(&doc)) return *err;
  return check_chat_request(std::get<nlohmann::json>(std::move(doc)));
}

std::variant<ChatRequest, ApiError> check_chat_request(nlohmann::json doc) {
  ChatRequest req;
  auto model = doc.find("model");
  if (model == doc.end() || model->is_null()) {
    return bad_request("missing_required_field", "'model' is required: name a catalog alias (GET /v1/models)",
                       "model");
  }
  if (!model->is_string()) {
    return bad_request("invalid_parameter", "'model' must be a string, not " + type_name(*model), "model");
  }
  req.model = model->get<std::string>();
  auto messages = doc.find("messages");
  if (messages == doc.end() || messages->is_null()) {
    return bad_request("missing_required_field", "'messages' is required: an array of chat messages",
                       "messages");
  }
  if (!messages->is_array()) {
    return bad_request("invalid_parameter", "'messages' must be an array, not " + type_name(*messages),
                       "messages");
  }
  if (messages->empty()) {
    return bad_request("invalid_parameter", "'messages' must contain at least one message", "messages");
  }
  for (std::size_t i = 0; i < messages->size(); ++i) {
    if (auto err = check_message((*messages)[i], i)) return *err;
  }
  if (auto stream = doc.find("stream"); stream != doc.end() && !stream->is_null()) {
    if (!stream->is_boolean()) {
      return bad_request("invalid_parameter", "'stream' must be a boolean, not " + type_name(*stream),
                         "stream");
    }
    req.stream = stream->get<bool>();
  }
  for (const char* name : {"max_tokens", "max_completion_tokens"}) {
    auto v = doc.find(name);
    if (v == doc.end() || v->is_null()) continue;
    if (!v->is_number_integer() || v->get<std::int64_t>() < 1) {
      return bad_request(
          "invalid_parameter",
          std::string("'") + name + "' must be a positive integer, not " +
              (v->is_number_integer() ? std::to_string(v->get<std::int64_t>()) : type_name(*v)),
          name);
    }
    // OpenAI's newer name wins when a client sends both.
    if (!req.max_tokens || std::string_view(name) == "max_completion_tokens")
      req.max_tokens = v->get<std::int64_t>();
  }
  req.doc = std::move(doc);
  return req;
}

}  // namespace modelgw::chat
