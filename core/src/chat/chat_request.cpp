#include "chat/chat_request.h"

#include "util/json_depth.h"

#include <nlohmann/json.hpp>

#include <array>
#include <limits>
#include <vector>

namespace modelgw::chat {
namespace {

using errors::ApiError;
using errors::bad_request;

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

// Walks a body that failed to parse, to say where it failed: the byte of a
// syntax error, or the member path of a number out of range (nlohmann reports
// "1e999" as out_of_range 406, not as a parse_error). Run on the error path
// only, so the parse of a good body stays a single DOM parse.
class FailureFinder {
 public:
  using json = nlohmann::json;

  std::size_t byte = 0;
  bool overflow = false;  // a number out of range; `path` and `number` say which
  std::string path;       // "temperature", "messages[0].content[2].x"; empty: the body itself
  std::string number;     // the literal as written

  bool null() { return value_done(); }
  bool boolean(bool) { return value_done(); }
  bool number_integer(json::number_integer_t) { return value_done(); }
  bool number_unsigned(json::number_unsigned_t) { return value_done(); }
  bool number_float(json::number_float_t, const json::string_t&) { return value_done(); }
  bool string(json::string_t&) { return value_done(); }
  bool binary(json::binary_t&) { return value_done(); }
  bool start_object(std::size_t) { return push(false); }
  bool start_array(std::size_t) { return push(true); }
  bool key(json::string_t& k) {
    levels_.back().key = k;
    return true;
  }
  bool end_object() { return pop(); }
  bool end_array() { return pop(); }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& e) {
    byte = position;
    if (e.id == 406) {
      overflow = true;
      number = last_token;
      for (const auto& level : levels_) {
        if (level.array) {
          path.append("[").append(std::to_string(level.index)).append("]");
        } else {
          path.append(path.empty() ? "" : ".").append(level.key);
        }
      }
    }
    return false;
  }

 private:
  struct Level {
    bool array = false;
    std::size_t index = 0;  // of the element being read, in an array
    std::string key;        // of the member being read, in an object
  };
  std::vector<Level> levels_;

  bool value_done() {
    if (!levels_.empty() && levels_.back().array) ++levels_.back().index;
    return true;
  }
  bool push(bool array) {
    levels_.push_back(Level{array, 0, {}});
    return true;
  }
  bool pop() {
    levels_.pop_back();
    return value_done();
  }
};

ApiError parse_failure(std::string_view body) {
  FailureFinder finder;
  nlohmann::json::sax_parse(body, &finder);
  if (!finder.overflow) {
    return bad_request("invalid_json",
                       "the request body is not valid JSON (byte " + std::to_string(finder.byte) + ")");
  }
  const std::string number = errors::input_excerpt(finder.number, 32);
  if (finder.path.empty()) {
    return bad_request("invalid_parameter",
                       "the request body is the number " + number +
                           ", which is out of range; send a JSON object with model and messages");
  }
  std::string param = errors::input_excerpt(finder.path, 128);
  return bad_request("invalid_parameter",
                     "'" + param + "' is " + number +
                         ", a number out of range: JSON numbers must fit a 64-bit float (about "
                         "1.8e308 in magnitude)",
                     param);
}

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
  if (doc.is_discarded()) return parse_failure(body);
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
