#include "generation_config.h"

#include "invalid_request.h"

#include <string>
#include <string_view>
#include <utility>

namespace mgw::gemini {

using namespace mgw::provider;

namespace {

// Copies request[from] to config[to] when it is a number; null is "not set".
void copy_number(const Json& request, std::string_view from, Json& config, std::string_view to) {
  const Json* v = member(request, from);
  if (v == nullptr) {
    return;
  }
  if (!v->is_number()) {
    throw InvalidRequest(std::string(from), std::string(from) + " must be a number");
  }
  config[std::string(to)] = *v;
}

void copy_integer(const Json& request, std::string_view from, Json& config, std::string_view to) {
  const Json* v = member(request, from);
  if (v == nullptr) {
    return;
  }
  if (!v->is_number_integer()) {
    throw InvalidRequest(std::string(from), std::string(from) + " must be an integer");
  }
  config[std::string(to)] = *v;
}

void max_output_tokens(const Json& request, int64_t default_max_tokens, Json& config) {
  // max_completion_tokens replaced max_tokens in OpenAI's API; it wins when
  // a client sends both.
  for (std::string_view name : {"max_completion_tokens", "max_tokens"}) {
    if (member(request, name) != nullptr) {
      copy_integer(request, name, config, "maxOutputTokens");
      return;
    }
  }
  if (default_max_tokens > 0) {
    config["maxOutputTokens"] = default_max_tokens;
  }
}

void stop_sequences(const Json& request, Json& config) {
  const Json* stop = member(request, "stop");
  if (stop == nullptr) {
    return;
  }
  if (stop->is_string()) {
    config["stopSequences"] = Json::array({*stop});
    return;
  }
  bool strings = stop->is_array();
  for (std::size_t i = 0; strings && i < stop->size(); ++i) {
    strings = (*stop)[i].is_string();
  }
  if (!strings) {
    throw InvalidRequest("stop", "stop must be a string or an array of strings");
  }
  if (!stop->empty()) {
    config["stopSequences"] = *stop;
  }
}

void response_format(const Json& request, Json& config) {
  const Json* format = member(request, "response_format");
  if (format == nullptr) {
    return;
  }
  const std::string_view type = string_member(*format, "type");
  if (type == "text") {
    return;
  }
  if (type == "json_object") {
    config["responseMimeType"] = "application/json";
    return;
  }
  if (type == "json_schema") {
    config["responseMimeType"] = "application/json";
    const Json* wrapper = member(*format, "json_schema");
    if (const Json* schema = wrapper == nullptr ? nullptr : member(*wrapper, "schema"); schema != nullptr) {
      config["responseSchema"] = *schema;  // as given: Gemini says what it cannot take
    }
    return;
  }
  throw InvalidRequest("response_format.type",
                       "response_format.type must be text, json_object or json_schema");
}

}  // namespace

Json generation_config(const Json& request, int64_t default_max_tokens) {
  Json config = Json::object();
  copy_number(request, "temperature", config, "temperature");
  copy_number(request, "top_p", config, "topP");
  max_output_tokens(request, default_max_tokens, config);
  stop_sequences(request, config);
  copy_integer(request, "n", config, "candidateCount");
  copy_integer(request, "seed", config, "seed");
  copy_number(request, "presence_penalty", config, "presencePenalty");
  copy_number(request, "frequency_penalty", config, "frequencyPenalty");
  response_format(request, config);
  return config.empty() ? Json() : config;
}

Json tools(const Json& request) {
  const Json* list = member(request, "tools");
  if (list == nullptr) {
    return Json();
  }
  if (!list->is_array()) {
    throw InvalidRequest("tools", "tools must be an array");
  }
  Json declarations = Json::array();
  for (std::size_t i = 0; i < list->size(); ++i) {
    const Json& tool = (*list)[i];
    const std::string path = "tools[" + std::to_string(i) + "]";
    if (string_member(tool, "type") != "function") {
      throw InvalidRequest(path + ".type", "only function tools are supported by the gemini provider");
    }
    const Json* fn = member(tool, "function");
    const std::string_view name = fn == nullptr ? std::string_view() : string_member(*fn, "name");
    if (name.empty()) {
      throw InvalidRequest(path + ".function.name", "a function tool needs a name");
    }
    Json decl = Json::object();
    decl["name"] = name;
    if (const std::string_view description = string_member(*fn, "description"); !description.empty()) {
      decl["description"] = description;
    }
    if (const Json* parameters = member(*fn, "parameters"); parameters != nullptr) {
      decl["parameters"] = *parameters;
    }
    declarations.push_back(std::move(decl));
  }
  if (declarations.empty()) {
    return Json();
  }
  return Json::array({Json{{"functionDeclarations", std::move(declarations)}}});
}

Json tool_config(const Json& request) {
  const Json* choice = member(request, "tool_choice");
  if (choice == nullptr) {
    return Json();
  }
  Json calling = Json::object();
  if (choice->is_string()) {
    const std::string& mode = choice->get_ref<const std::string&>();
    if (mode == "auto") {
      calling["mode"] = "AUTO";
    } else if (mode == "required") {
      calling["mode"] = "ANY";
    } else if (mode == "none") {
      calling["mode"] = "NONE";
    }
  } else if (string_member(*choice, "type") == "function") {
    const Json* fn = member(*choice, "function");
    const std::string_view name = fn == nullptr ? std::string_view() : string_member(*fn, "name");
    if (!name.empty()) {
      // OpenAI's "call this function" is Gemini's "call one of these", with one.
      calling["mode"] = "ANY";
      calling["allowedFunctionNames"] = Json::array({name});
    }
  }
  if (calling.empty()) {
    throw InvalidRequest(
        "tool_choice",
        "tool_choice must be auto, required, none or {\"type\":\"function\",\"function\":{\"name\":…}}");
  }
  return Json{{"functionCallingConfig", std::move(calling)}};
}

}  // namespace mgw::gemini
