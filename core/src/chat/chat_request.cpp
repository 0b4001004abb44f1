#include "chat/chat_request.h"

#include "util/json_body.h"

#include <nlohmann/json.hpp>

#include <algorithm>
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

// OpenAI's chat parameters whose type, and for the sampling numbers range,
// the gateway checks itself (README "Errors": a wrong type or value is 400
// invalid_parameter), so every vendor behind an alias answers alike. Null is
// taken as absent, as OpenAI takes it. Ranges are OpenAI's; a vendor with a
// narrower one (Anthropic's temperature) still refuses through its plugin.
enum class Expect { number, integer, boolean, string, object, array, string_or_strings, string_or_object };
struct ParameterRule {
  std::string_view name;
  Expect expect;
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
};
constexpr ParameterRule kParameterRules[] = {
    {"temperature", Expect::number, 0, 2},
    {"top_p", Expect::number, 0, 1},
    {"presence_penalty", Expect::number, -2, 2},
    {"frequency_penalty", Expect::number, -2, 2},
    {"seed", Expect::integer},
    {"logprobs", Expect::boolean},
    {"top_logprobs", Expect::integer, 0, 20},
    {"stop", Expect::string_or_strings},
    {"user", Expect::string},
    {"parallel_tool_calls", Expect::boolean},
    {"stream_options", Expect::object},
    {"response_format", Expect::object},
    {"tools", Expect::array},
    {"tool_choice", Expect::string_or_object},
    {"logit_bias", Expect::object},
    {"metadata", Expect::object},
    {"store", Expect::boolean},
    {"service_tier", Expect::string},
    {"reasoning_effort", Expect::string},
    {"modalities", Expect::array},
};

const char* expected_words(Expect e) {
  switch (e) {
    case Expect::number:
      return "a number";
    case Expect::integer:
      return "an integer";
    case Expect::boolean:
      return "a boolean";
    case Expect::string:
      return "a string";
    case Expect::object:
      return "an object";
    case Expect::array:
      return "an array";
    case Expect::string_or_strings:
      return "a string or an array of strings";
    case Expect::string_or_object:
      return "a string or an object";
  }
  return "";
}

bool has_type(const nlohmann::json& v, Expect e) {
  switch (e) {
    case Expect::number:
      return v.is_number();
    case Expect::integer:
      return v.is_number_integer();
    case Expect::boolean:
      return v.is_boolean();
    case Expect::string:
      return v.is_string();
    case Expect::object:
      return v.is_object();
    case Expect::array:
      return v.is_array();
    case Expect::string_or_strings:
      return v.is_string() ||
             (v.is_array() && std::all_of(v.begin(), v.end(), [](const auto& s) { return s.is_string(); }));
    case Expect::string_or_object:
      return v.is_string() || v.is_object();
  }
  return false;
}

// The first known parameter of the wrong type or out of its range. Walks the
// body's members (a handful) against the table, not the table against the body.
std::optional<ApiError> check_parameter_types(const nlohmann::json& doc) {
  for (const auto& member : doc.items()) {
    // Named, not bound: clang 14 lets no lambda capture a structured binding.
    const std::string& name = member.key();
    const nlohmann::json& value = member.value();
    if (value.is_null()) continue;
    const auto rule = std::find_if(std::begin(kParameterRules), std::end(kParameterRules),
                                   [&](const ParameterRule& r) { return r.name == name; });
    if (rule == std::end(kParameterRules)) continue;
    if (!has_type(value, rule->expect)) {
      return bad_request(
          "invalid_parameter",
          "'" + name + "' must be " + expected_words(rule->expect) + ", not " + type_name(value), name);
    }
    if (value.is_number()) {
      const double v = value.get<double>();
      if (v < rule->min || v > rule->max) {
        return bad_request("invalid_parameter",
                           "'" + name + "' must be between " +
                               errors::input_excerpt(nlohmann::json(rule->min).dump()) + " and " +
                               errors::input_excerpt(nlohmann::json(rule->max).dump()) + ", not " +
                               errors::input_excerpt(value.dump(), 32),
                           name);
      }
    }
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
  if (auto err = check_parameter_types(doc)) return *err;
  req.doc = std::move(doc);
  return req;
}

}  // namespace modelgw::chat
