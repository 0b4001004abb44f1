#include "chat/chat_request.h"

#include "util/json_body.h"

#include <nlohmann/json.hpp>

#include <array>
#include <limits>
#include <vector>

namespace modelgw::chat {
namespace {

using errors::ApiError;
using errors::bad_request;
using util::type_name;

constexpr std::array<std::string_view, 6> kRoles = {"system",    "developer", "user",
                                                    "assistant", "tool",      "function"};

// A 64-bit value the gateway reads as a count: a positive integer that fits
// std::int64_t (a larger unsigned one would wrap to a negative).
std::optional<std::int64_t> positive_int64(const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u < 1 || u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return std::nullopt;
    return static_cast<std::int64_t>(u);
  }
  if (v.is_number_integer() && v.get<std::int64_t>() >= 1) return v.get<std::int64_t>();
  return std::nullopt;
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
    return bad_request("invalid_parameter",
                       at + ".role '" + errors::input_excerpt(r) +
                           "' is not one of system, developer, user, assistant, tool, function",
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

std::variant<ChatRequest, ApiError> parse_chat_request(std::string_view body) {
  auto doc = util::parse_json_object(body, "model and messages");
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
    const auto limit = positive_int64(*v);
    if (!limit) {
      return bad_request("invalid_parameter",
                         std::string("'") + name + "' must be a positive integer of at most " +
                             std::to_string(std::numeric_limits<std::int64_t>::max()) + ", not " +
                             (v->is_number_integer() ? errors::input_excerpt(v->dump(), 32) : type_name(*v)),
                         name);
    }
    // OpenAI's newer name wins when a client sends both.
    if (!req.max_tokens || std::string_view(name) == "max_completion_tokens") req.max_tokens = *limit;
  }
  if (auto n = doc.find("n"); n != doc.end() && !n->is_null()) {
    const auto choices = positive_int64(*n);
    if (!choices) {
      return bad_request("invalid_parameter",
                         "'n' must be a positive integer (the number of completions), not " +
                             (n->is_number_integer() ? errors::input_excerpt(n->dump(), 32) : type_name(*n)),
                         "n");
    }
    req.choices = *choices;
  }
  req.doc = std::move(doc);
  return req;
}

}  // namespace modelgw::chat
