#include "prompts/prompt_invocation.h"

#include "prompts/prompt_version.h"
#include "prompts/template.h"

#include <map>
#include <optional>

namespace modelgw::prompts {
namespace {

using errors::ApiError;
using errors::bad_request;

struct PromptRef {
  std::string name;
  std::int64_t version = 0;  // 0: the active one
  std::map<std::string, std::string> values;
};

std::optional<std::int64_t> parse_version(const nlohmann::json& v) {
  if (v.is_number_integer() && v.get<std::int64_t>() > 0) return v.get<std::int64_t>();
  // OpenAI's Responses API sends the version as a string.
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    const auto n = std::stoll(s);
    if (n > 0) return n;
  }
  return std::nullopt;
}

// A variable's value as text: strings as they are, numbers and booleans as
// JSON writes them, and OpenAI's {"type":"input_text","text":...} form.
std::optional<std::string> value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  if (v.is_object() && v.value("type", "") == "input_text" && v.contains("text") && v["text"].is_string()) {
    return v["text"].get<std::string>();
  }
  return std::nullopt;
}

std::variant<PromptRef, ApiError> parse_ref(const nlohmann::json& prompt) {
  if (!prompt.is_object()) {
    return bad_request(
        "invalid_parameter",
        "'prompt' must be an object: {\"name\": \"...\", \"version\": 1, \"variables\": {...}}", "prompt");
  }
  PromptRef ref;
  for (const auto& [key, value] : prompt.items()) {
    if (key != "name" && key != "id" && key != "version" && key != "variables") {
      const std::string param = "prompt." + errors::input_excerpt(key);
      return bad_request("invalid_parameter",
                         "'" + param + "' is not a known member; use name, version and variables", param);
    }
  }
  for (const char* member : {"name", "id"}) {
    auto it = prompt.find(member);
    if (it == prompt.end() || it->is_null()) continue;
    if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
      return bad_request("invalid_parameter",
                         std::string("'prompt.") + member + "' must be a non-empty string",
                         std::string("prompt.") + member);
    }
    if (!ref.name.empty() && ref.name != it->get<std::string>()) {
      return bad_request("invalid_parameter",
                         "'prompt.name' and 'prompt.id' name different prompts; send one", "prompt.id");
    }
    ref.name = it->get<std::string>();
  }
  if (ref.name.empty()) {
    return bad_request("missing_required_field", "'prompt.name' is required: the name of a registered prompt",
                       "prompt.name");
  }
  if (auto it = prompt.find("version"); it != prompt.end() && !it->is_null()) {
    auto v = parse_version(*it);
    if (!v)
      return bad_request("invalid_parameter", "'prompt.version' must be a positive integer",
                         "prompt.version");
    ref.version = *v;
  }
  if (auto it = prompt.find("variables"); it != prompt.end() && !it->is_null()) {
    if (!it->is_object()) {
      return bad_request("invalid_parameter", "'prompt.variables' must be an object of name: value",
                         "prompt.variables");
    }
    for (const auto& [name, value] : it->items()) {
      auto text = value_text(value);
      if (!text) {
        const std::string param = "prompt.variables." + errors::input_excerpt(name);
        return bad_request("invalid_parameter", "'" + param + "' must be a string, number or boolean", param);
      }
      ref.values.emplace(name, std::move(*text));
    }
  }
  return ref;
}

}  // namespace

bool names_prompt(const nlohmann::json& body) {
  return body.is_object() && body.contains("prompt");
}

std::variant<Expansion, ApiError> expand_prompt(nlohmann::json body, std::int64_t tenant_id,
                                                PromptStore& store) {
  auto parsed = parse_ref(body["prompt"]);
  if (auto* err = std::get_if<ApiError>(&parsed)) return *err;
  const auto& ref = std::get<PromptRef>(parsed);

  // No stored prompt has a name that is_prompt_name refuses: answer without a
  // storage lookup (or a cache entry) for a made-up name.
  auto prompt = is_prompt_name(ref.name) ? store.find(tenant_id, ref.name, ref.version) : nullptr;
  if (!prompt) {
    const std::string shown = errors::input_excerpt(ref.name);
    if (ref.version != 0 && is_prompt_name(ref.name) && store.find(tenant_id, ref.name, 0)) {
      return errors::not_found("prompt_not_found",
                               "prompt '" + shown + "' has no version " + std::to_string(ref.version) +
                                   "; GET /v1/prompts/" + shown + " shows the active one",
                               "prompt.version");
    }
    return errors::not_found("prompt_not_found", "no prompt named '" + shown + "' exists for this tenant",
                             "prompt.name");
  }
  auto filled = fill_template(prompt->template_messages, ref.values);
  if (auto* missing = std::get_if<MissingVariable>(&filled)) {
    return ApiError{422, "prompt_variable_missing",
                    "prompt '" + ref.name + "' version " + std::to_string(prompt->version) +
                        " needs the variable '" + missing->name + "'; send it in prompt.variables",
                    "prompt.variables." + missing->name};
  }
  auto messages = std::get<nlohmann::json>(std::move(filled));
  if (auto own = body.find("messages"); own != body.end() && !own->is_null()) {
    if (!own->is_array()) {
      return bad_request("invalid_parameter", "'messages' must be an array of chat messages", "messages");
    }
    for (auto& m : *own) messages.push_back(std::move(m));
  }
  body["messages"] = std::move(messages);
  // The request's own values win; the registered ones fill the gaps.
  if (!body.contains("model") || body["model"].is_null()) body["model"] = prompt->model;
  for (const auto& [key, value] : prompt->parameters.items()) {
    if (!body.contains(key) || body[key].is_null()) body[key] = value;
  }
  body.erase("prompt");
  std::string text = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return Expansion{std::move(body), std::move(text), ref.name, prompt->version};
}

}  // namespace modelgw::prompts
