#include "tool_translator.h"

#include "rejection.h"

#include <string>

namespace mgw::anthropic {

using namespace mgw::provider;

namespace {

std::string indexed(std::string_view base, std::string_view member_name, std::size_t i) {
  return std::string(base) + std::string(member_name) + "[" + std::to_string(i) + "]";
}

// `function.arguments` is JSON text in OpenAI's shape and a JSON object in
// Anthropic's. An empty string stands for "no arguments" in some clients; an
// object already parsed is taken as it is.
Json tool_input(const Json* arguments, const std::string& where) {
  if (arguments == nullptr) {
    return Json::object();
  }
  if (arguments->is_object()) {
    return *arguments;
  }
  if (!arguments->is_string()) {
    reject_invalid(where, "function.arguments must be a string holding a JSON object");
  }
  const std::string& text = arguments->get_ref<const std::string&>();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Json::object();
  }
  // The host checked the body's depth, not that of JSON inside its strings:
  // a hostile depth must not reach dump().
  if (!nesting_within(text, kMaxVendorDepth)) {
    reject_invalid(where,
                   "function.arguments nests deeper than " + std::to_string(kMaxVendorDepth) + " levels");
  }
  Json input = parse_json(text);
  if (input.is_discarded()) {
    reject_invalid(where, "function.arguments is not valid JSON");
  }
  if (!input.is_object()) {
    reject_invalid(where, "function.arguments must encode a JSON object");
  }
  return input;
}

Json tool_use_block(const Json& call, const std::string& where) {
  if (!call.is_object()) {
    reject_invalid(where, "a tool call must be an object");
  }
  if (auto type = string_member(call, "type"); !type.empty() && type != "function") {
    reject_invalid(where + ".type", "only function tool calls are supported by the anthropic provider");
  }
  const std::string_view id = string_member(call, "id");
  if (id.empty()) {
    reject_invalid(where + ".id", "a tool call needs a non-empty string id");
  }
  const Json* function = member(call, "function");
  const std::string_view name = function != nullptr ? string_member(*function, "name") : std::string_view{};
  if (name.empty()) {
    reject_invalid(where + ".function.name", "a tool call needs a non-empty function name");
  }
  return Json{{"type", "tool_use"},
              {"id", id},
              {"name", name},
              {"input", tool_input(member(*function, "arguments"), where + ".function.arguments")}};
}

Json tool(const Json& entry, const std::string& where) {
  if (!entry.is_object()) {
    reject_invalid(where, "a tool must be an object");
  }
  if (string_member(entry, "type") != "function") {
    reject_invalid(where + ".type", "only function tools are supported by the anthropic provider");
  }
  const Json* function = member(entry, "function");
  const std::string_view name = function != nullptr ? string_member(*function, "name") : std::string_view{};
  if (name.empty()) {
    reject_invalid(where + ".function.name", "a function tool needs a non-empty name");
  }
  Json out = Json::object();
  out["name"] = name;
  if (auto description = string_member(*function, "description"); !description.empty()) {
    out["description"] = description;
  }
  // Anthropic requires a schema; OpenAI lets a function without parameters
  // take none, which is this schema.
  const Json* parameters = member(*function, "parameters");
  if (parameters != nullptr && !parameters->is_object()) {
    reject_invalid(where + ".function.parameters", "function.parameters must be a JSON Schema object");
  }
  out["input_schema"] =
      parameters != nullptr ? *parameters : Json{{"type", "object"}, {"properties", Json::object()}};
  return out;
}

Json choice_from(const Json& choice) {
  if (choice.is_string()) {
    const auto& s = choice.get_ref<const std::string&>();
    if (s == "auto") {
      return Json{{"type", "auto"}};
    }
    if (s == "required") {
      return Json{{"type", "any"}};
    }
    if (s == "none") {
      return Json{{"type", "none"}};
    }
  } else if (string_member(choice, "type") == "function") {
    const Json* function = member(choice, "function");
    const std::string_view name = function != nullptr ? string_member(*function, "name") : std::string_view{};
    if (!name.empty()) {
      return Json{{"type", "tool"}, {"name", name}};
    }
  }
  reject_invalid("tool_choice",
                 "tool_choice must be \"auto\", \"required\", \"none\" or "
                 "{\"type\":\"function\",\"function\":{\"name\":…}}");
}

}  // namespace

Json tool_use_blocks(const Json& tool_calls, std::string_view path) {
  if (!tool_calls.is_array()) {
    reject_invalid(std::string(path) + ".tool_calls", "tool_calls must be an array");
  }
  Json out = Json::array();
  for (std::size_t j = 0; j < tool_calls.size(); ++j) {
    out.push_back(tool_use_block(tool_calls[j], indexed(path, ".tool_calls", j)));
  }
  return out;
}

std::optional<Json> tools(const Json& request) {
  const Json* list = member(request, "tools");
  if (list == nullptr) {
    return std::nullopt;
  }
  if (!list->is_array()) {
    reject_invalid("tools", "tools must be an array");
  }
  if (list->empty()) {
    return std::nullopt;
  }
  Json out = Json::array();
  for (std::size_t i = 0; i < list->size(); ++i) {
    out.push_back(tool((*list)[i], indexed("", "tools", i)));
  }
  return out;
}

std::optional<Json> tool_choice(const Json& request, bool has_tools) {
  const Json* choice = member(request, "tool_choice");
  std::optional<Json> out;
  if (choice != nullptr) {
    out = choice_from(*choice);
  }
  // parallel_tool_calls: false → Anthropic's disable_parallel_tool_use, which
  // lives inside tool_choice (absent choice means auto) and which the "none"
  // choice does not take.
  const Json* parallel = member(request, "parallel_tool_calls");
  if (has_tools && parallel != nullptr && parallel->is_boolean() && !parallel->get<bool>()) {
    if (!out) {
      out = Json{{"type", "auto"}};
    }
    if ((*out)["type"] != "none") {
      (*out)["disable_parallel_tool_use"] = true;
    }
  }
  return out;
}

}  // namespace mgw::anthropic
