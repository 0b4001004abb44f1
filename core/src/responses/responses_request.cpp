#include "responses/responses_request.h"

#include "util/json_body.h"
#include "util/known_members.h"

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace modelgw::responses {

const nlohmann::json& echo_defaults() {
  // Built once: a copy of a built document is a fraction of the cost of
  // nlohmann's nested initializer lists, on every request of this door.
  static const nlohmann::json defaults =
      nlohmann::json{{"instructions", nullptr},
                     {"max_output_tokens", nullptr},
                     {"metadata", nlohmann::json::object()},
                     {"parallel_tool_calls", true},
                     {"previous_response_id", nullptr},
                     {"reasoning", {{"effort", nullptr}, {"summary", nullptr}}},
                     {"store", false},
                     {"temperature", 1.0},
                     {"text", {{"format", {{"type", "text"}}}}},
                     {"tool_choice", "auto"},
                     {"tools", nlohmann::json::array()},
                     {"top_p", 1.0},
                     {"truncation", "disabled"},
                     {"user", nullptr}};
  return defaults;
}

nlohmann::json full_echo(const nlohmann::json& echo) {
  nlohmann::json full = echo_defaults();
  if (echo.is_object()) {
    for (const auto& [name, value] : echo.get_ref<const nlohmann::json::object_t&>()) full[name] = value;
  }
  return full;
}

namespace {

using nlohmann::json;

// A refusal raised anywhere in the walk and answered once, at the top.
struct Refused {
  errors::ApiError error;
};

[[noreturn]] void refuse(std::string code, std::string message, std::string param) {
  throw Refused{errors::bad_request(std::move(code), std::move(message), std::move(param))};
}

// A parameter this gateway knows but cannot serve on the chat chain.
[[noreturn]] void unsupported(std::string message, std::string param) {
  throw Refused{errors::ApiError{422, "unsupported_parameter", std::move(message), std::move(param)}};
}

using util::type_name;

const json& require(const json& v, bool ok, const std::string& param, const char* wanted) {
  if (!ok) refuse("invalid_parameter", "'" + param + "' must be " + wanted + ", not " + type_name(v), param);
  return v;
}
const std::string& string_at(const json& v, const std::string& param) {
  return require(v, v.is_string(), param, "a string").get_ref<const std::string&>();
}

// The request members of OpenAI's API this door reads; any other is refused,
// as OpenAI refuses what it does not know.
constexpr std::array<std::string_view, 29> kKnown = {"client_metadata",
                                                     "model",
                                                     "input",
                                                     "instructions",
                                                     "tools",
                                                     "tool_choice",
                                                     "parallel_tool_calls",
                                                     "max_output_tokens",
                                                     "max_tool_calls",
                                                     "temperature",
                                                     "top_p",
                                                     "top_logprobs",
                                                     "text",
                                                     "reasoning",
                                                     "metadata",
                                                     "user",
                                                     "truncation",
                                                     "store",
                                                     "stream",
                                                     "stream_options",
                                                     "previous_response_id",
                                                     "conversation",
                                                     "include",
                                                     "background",
                                                     "service_tier",
                                                     "prompt",
                                                     "safety_identifier",
                                                     "prompt_cache_key",
                                                     "prompt_cache_retention"};

// One content part of an input message -> a chat content part.
json content_part(const json& part, const std::string& at, bool assistant) {
  require(part, part.is_object(), at, "an object");
  const auto type = part.find("type");
  if (type == part.end()) refuse("missing_required_field", "'" + at + ".type' is required", at + ".type");
  const std::string& t = string_at(*type, at + ".type");
  if (t == "input_text" || t == "output_text" || t == "text") {
    const auto text = part.find("text");
    if (text == part.end()) refuse("missing_required_field", "'" + at + ".text' is required", at + ".text");
    return json{{"type", "text"}, {"text", string_at(*text, at + ".text")}};
  }
  if (t == "refusal" && assistant) {
    const auto text = part.find("refusal");
    return json{{"type", "text"},
                {"text", text == part.end() ? std::string() : string_at(*text, at + ".refusal")}};
  }
  if (t == "input_image" && !assistant) {
    const auto url = part.find("image_url");
    if (url == part.end()) {
      if (part.contains("file_id"))
        unsupported("input_image with a file_id is not served; send image_url (a URL or a data: URL)",
                    at + ".file_id");
      refuse("missing_required_field", "'" + at + ".image_url' is required", at + ".image_url");
    }
    json image{{"url", string_at(*url, at + ".image_url")}};
    if (const auto detail = part.find("detail"); detail != part.end() && !detail->is_null())
      image["detail"] = string_at(*detail, at + ".detail");
    return json{{"type", "image_url"}, {"image_url", std::move(image)}};
  }
  if (t == "input_file" && !assistant) {
    json file = json::object();
    for (const char* key : {"file_data", "file_id", "filename"}) {
      if (const auto v = part.find(key); v != part.end() && !v->is_null())
        file[key] = string_at(*v, at + "." + key);
    }
    if (file.empty()) refuse("missing_required_field", "'" + at + "' needs file_data or file_id", at);
    return json{{"type", "file"}, {"file", std::move(file)}};
  }
  refuse("invalid_parameter",
         "'" + at + ".type' is '" + errors::input_excerpt(t) + "'; " +
             (assistant ? "an assistant message holds output_text or refusal parts"
                        : "input messages hold input_text, input_image or input_file parts"),
         at + ".type");
}

// A message item (or the short form {role, content}) -> a chat message.
json message(const json& item, const std::string& at) {
  const auto role_it = item.find("role");
  if (role_it == item.end()) refuse("missing_required_field", "'" + at + ".role' is required", at + ".role");
  const std::string& role = string_at(*role_it, at + ".role");
  if (role != "user" && role != "system" && role != "developer" && role != "assistant") {
    refuse("invalid_parameter",
           "'" + at + ".role' is '" + errors::input_excerpt(role) +
               "'; use user, system, developer or assistant",
           at + ".role");
  }
  const auto content = item.find("content");
  if (content == item.end())
    refuse("missing_required_field", "'" + at + ".content' is required", at + ".content");
  json out{{"role", role}};
  if (content->is_string()) {
    out["content"] = *content;
    return out;
  }
  require(*content, content->is_array(), at + ".content", "a string or an array of content parts");
  const bool assistant = role == "assistant";
  json parts = json::array();
  for (std::size_t i = 0; i < content->size(); ++i)
    parts.push_back(content_part((*content)[i], at + ".content[" + std::to_string(i) + "]", assistant));
  // An assistant's history is text: chat takes it as one string.
  if (assistant) {
    std::string text;
    for (const auto& p : parts) text += p["text"].get_ref<const std::string&>();
    out["content"] = std::move(text);
  } else {
    out["content"] = std::move(parts);
  }
  return out;
}

// function_call_output's output: a string, or a list of input parts.
json tool_output(const json& output, const std::string& at) {
  if (output.is_string()) return output;
  require(output, output.is_array(), at, "a string or an array of content parts");
  std::string text;
  for (std::size_t i = 0; i < output.size(); ++i) {
    const json part = content_part(output[i], at + "[" + std::to_string(i) + "]", false);
    if (part["type"] != "text") unsupported("a function_call_output is served as text only", at);
    text += part["text"].get_ref<const std::string&>();
  }
  return text;
}

// A function call's name as the chat form has it: <namespace>__<name> for a
// call of a namespace's function.
std::string namespaced_name(const json& item, const std::string& at) {
  std::string name = string_at(item.at("name"), at + ".name");
  if (const auto ns = item.find("namespace"); ns != item.end() && !ns->is_null())
    name = string_at(*ns, at + ".namespace") + std::string(kNamespaceSeparator) + name;
  return name;
}

// input: a string (one user message) or a list of items.
void add_input(const json& input, json& messages) {
  if (input.is_string()) {
    messages.push_back(json{{"role", "user"}, {"content", input}});
    return;
  }
  require(input, input.is_array(), "input", "a string or an array of input items");
  if (input.empty()) refuse("invalid_parameter", "'input' must hold at least one item", "input");
  for (std::size_t i = 0; i < input.size(); ++i) {
    const std::string at = "input[" + std::to_string(i) + "]";
    const json& item = require(input[i], input[i].is_object(), at, "an object");
    const auto type_it = item.find("type");
    const std::string type = type_it == item.end() ? "message" : string_at(*type_it, at + ".type");
    if (type == "message") {
      messages.push_back(message(item, at));
    } else if (type == "function_call") {
      for (const char* key : {"call_id", "name", "arguments"}) {
        if (!item.contains(key))
          refuse("missing_required_field", "'" + at + "." + key + "' is required", at + "." + key);
      }
      json call{{"id", string_at(item["call_id"], at + ".call_id")},
                {"type", "function"},
                {"function",
                 {{"name", namespaced_name(item, at)},
                  {"arguments", string_at(item["arguments"], at + ".arguments")}}}};
      // Calls one after another are one assistant turn (parallel tool calls);
      // so is a call right after the assistant's text.
      if (!messages.empty() && messages.back()["role"] == "assistant") {
        json& last = messages.back();
        if (!last.contains("tool_calls")) last["tool_calls"] = json::array();
        last["tool_calls"].push_back(std::move(call));
      } else {
        messages.push_back(
            json{{"role", "assistant"}, {"content", nullptr}, {"tool_calls", json::array({call})}});
      }
    } else if (type == "function_call_output") {
      for (const char* key : {"call_id", "output"}) {
        if (!item.contains(key))
          refuse("missing_required_field", "'" + at + "." + key + "' is required", at + "." + key);
      }
      messages.push_back(json{{"role", "tool"},
                              {"tool_call_id", string_at(item["call_id"], at + ".call_id")},
                              {"content", tool_output(item["output"], at + ".output")}});
    } else if (type == "reasoning") {
      // A reasoning item passed back: chat has no place for it, and the model
      // reasons afresh. Dropped, as the item's own docs allow.
    } else if (type == "item_reference") {
      unsupported("item_reference is not served: send the item itself", at + ".type");
    } else {
      unsupported(
          "'" + at + ".type' is '" + errors::input_excerpt(type) +
              "'; this gateway serves message, function_call, function_call_output and reasoning items",
          at + ".type");
    }
  }
}

// One function tool -> a chat function tool named `prefix` + its name.
json chat_function(const json& tool, const std::string& at, const std::string& prefix) {
  const auto name = tool.find("name");
  if (name == tool.end()) refuse("missing_required_field", "'" + at + ".name' is required", at + ".name");
  json function{{"name", prefix + string_at(*name, at + ".name")}};
  for (const char* key : {"description", "parameters", "strict"}) {
    if (const auto v = tool.find(key); v != tool.end() && !v->is_null()) function[key] = *v;
  }
  return json{{"type", "function"}, {"function", std::move(function)}};
}

// tools: functions, and namespaces of functions (each sent as a function
// named <namespace>__<name>, and named back in the answer); hosted tools are
// left out and listed in `dropped`.
json chat_tools(const json& tools, std::vector<std::string>& dropped) {
  require(tools, tools.is_array(), "tools", "an array");
  json out = json::array();
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const std::string at = "tools[" + std::to_string(i) + "]";
    const json& tool = require(tools[i], tools[i].is_object(), at, "an object");
    const auto type = tool.find("type");
    if (type == tool.end()) refuse("missing_required_field", "'" + at + ".type' is required", at + ".type");
    const std::string& t = string_at(*type, at + ".type");
    if (t == "function") {
      out.push_back(chat_function(tool, at, ""));
    } else if (t == "namespace") {
      const auto ns = tool.find("name");
      if (ns == tool.end()) refuse("missing_required_field", "'" + at + ".name' is required", at + ".name");
      const std::string& prefix = string_at(*ns, at + ".name");
      const auto inner = tool.find("tools");
      if (inner == tool.end() || !inner->is_array())
        refuse("invalid_parameter", "'" + at + ".tools' must be an array of function tools", at + ".tools");
      for (std::size_t j = 0; j < inner->size(); ++j) {
        const std::string inner_at = at + ".tools[" + std::to_string(j) + "]";
        const json& f = require((*inner)[j], (*inner)[j].is_object(), inner_at, "an object");
        if (const auto ft = f.find("type"); ft != f.end() && (!ft->is_string() || *ft != "function"))
          unsupported("a namespace holds tools of type function here", inner_at + ".type");
        out.push_back(chat_function(f, inner_at, prefix + std::string(kNamespaceSeparator)));
      }
    } else if (is_hosted_tool(t)) {
      dropped.push_back(t);
    } else {
      unsupported(
          "'" + at + ".type' is '" + errors::input_excerpt(t) +
              "'; this gateway serves tools of type function and namespace (OpenAI's hosted tools are "
              "left out)",
          at + ".type");
    }
  }
  return out;
}

json chat_tool_choice(const json& choice) {
  if (choice.is_string()) {
    const auto& c = choice.get_ref<const std::string&>();
    if (c != "auto" && c != "none" && c != "required")
      refuse("invalid_parameter", "'tool_choice' must be auto, none, required or a function", "tool_choice");
    return choice;
  }
  require(choice, choice.is_object(), "tool_choice", "a string or an object");
  const auto type = choice.find("type");
  if (type == choice.end() || !type->is_string() || *type != "function")
    unsupported("'tool_choice' names a function ({\"type\": \"function\", \"name\": ...}) here",
                "tool_choice.type");
  const auto name = choice.find("name");
  if (name == choice.end())
    refuse("missing_required_field", "'tool_choice.name' is required", "tool_choice.name");
  return json{{"type", "function"}, {"function", {{"name", string_at(*name, "tool_choice.name")}}}};
}

// text.format -> response_format (absent for plain text).
json chat_response_format(const json& text, json& echo_text) {
  require(text, text.is_object(), "text", "an object");
  echo_text = text;
  const auto format = text.find("format");
  if (format == text.end() || format->is_null()) {
    echo_text["format"] = json{{"type", "text"}};
    return nullptr;
  }
  require(*format, format->is_object(), "text.format", "an object");
  const auto type = format->find("type");
  if (type == format->end())
    refuse("missing_required_field", "'text.format.type' is required", "text.format.type");
  const std::string& t = string_at(*type, "text.format.type");
  if (t == "text") return nullptr;
  if (t == "json_object") return json{{"type", "json_object"}};
  if (t == "json_schema") {
    json schema = json::object();
    for (const char* key : {"name", "schema", "description", "strict"}) {
      if (const auto v = format->find(key); v != format->end() && !v->is_null()) schema[key] = *v;
    }
    if (!schema.contains("name"))
      refuse("missing_required_field", "'text.format.name' is required", "text.format.name");
    if (!schema.contains("schema"))
      refuse("missing_required_field", "'text.format.schema' is required", "text.format.schema");
    return json{{"type", "json_schema"}, {"json_schema", std::move(schema)}};
  }
  refuse("invalid_parameter", "'text.format.type' must be text, json_object or json_schema",
         "text.format.type");
}

TranslatedRequest translate(const json& body, TranslateOptions options) {
  if (!body.is_object()) refuse("invalid_parameter", "the request body must be a JSON object", "");
  const util::KnownMembers<kKnown> given(body);
  if (const std::string* name = given.unknown()) {
    refuse("unknown_parameter", "unknown parameter '" + errors::input_excerpt(*name) + "' for /v1/responses",
           errors::input_excerpt(*name));
  }
  TranslatedRequest out;
  json& chat = out.chat;
  json& echo = out.echo;
  chat = json::object();
  echo = json::object();  // the request's own values: full_echo() adds the defaults

  const json* model = given["model"];
  if (model == nullptr)
    refuse("missing_required_field", "'model' is required: name a catalog alias (GET /v1/models)", "model");
  chat["model"] = string_at(*model, "model");

  json messages = json::array();
  if (const json* v = given["instructions"]; v != nullptr && !v->is_null()) {
    messages.push_back(json{{"role", "system"}, {"content", string_at(*v, "instructions")}});
    echo["instructions"] = *v;
    out.has_instructions = true;
  }
  const json* input = given["input"];
  if (input == nullptr) refuse("missing_required_field", "'input' is required", "input");
  add_input(*input, messages);
  chat["messages"] = std::move(messages);

  if (const json* v = given["stream"]; v != nullptr && !v->is_null()) {
    chat["stream"] = require(*v, v->is_boolean(), "stream", "a boolean").get<bool>();
  }
  if (const json* v = given["tools"]; v != nullptr && !v->is_null()) {
    json tools = chat_tools(*v, out.dropped_tools);
    if (!tools.empty()) chat["tools"] = std::move(tools);
    echo["tools"] = *v;
  }
  if (const json* v = given["tool_choice"]; v != nullptr && !v->is_null()) {
    chat["tool_choice"] = chat_tool_choice(*v);
    echo["tool_choice"] = *v;
  }
  if (const json* v = given["parallel_tool_calls"]; v != nullptr && !v->is_null()) {
    require(*v, v->is_boolean(), "parallel_tool_calls", "a boolean");
    if (chat.contains("tools")) chat["parallel_tool_calls"] = *v;
    echo["parallel_tool_calls"] = *v;
  }
  if (const json* v = given["max_output_tokens"]; v != nullptr && !v->is_null()) {
    if (!v->is_number_integer() || v->get<std::int64_t>() < 1)
      refuse("invalid_parameter", "'max_output_tokens' must be a positive integer", "max_output_tokens");
    chat["max_tokens"] = *v;  // reasoning counts as output, as in chat's max_tokens
    echo["max_output_tokens"] = *v;
  }
  for (const auto& [key, v] :
       {std::pair{"temperature", given["temperature"]}, std::pair{"top_p", given["top_p"]}}) {
    if (v != nullptr && !v->is_null()) {
      require(*v, v->is_number(), key, "a number");
      chat[key] = *v;
      echo[key] = *v;
    }
  }
  if (const json* v = given["text"]; v != nullptr && !v->is_null()) {
    json format = chat_response_format(*v, echo["text"]);
    if (!format.is_null()) chat["response_format"] = std::move(format);
    // text.verbosity is a hint the chat form of most vendors has no member for: accepted, not sent on.
    if (const auto verbosity = v->find("verbosity"); verbosity != v->end() && !verbosity->is_null())
      string_at(*verbosity, "text.verbosity");
  }
  if (const json* v = given["reasoning"]; v != nullptr && !v->is_null()) {
    require(*v, v->is_object(), "reasoning", "an object");
    if (const auto effort = v->find("effort"); effort != v->end() && !effort->is_null()) {
      chat["reasoning_effort"] = string_at(*effort, "reasoning.effort");
      if (!echo.contains("reasoning")) echo["reasoning"] = echo_defaults().at("reasoning");
      echo["reasoning"]["effort"] = *effort;
    }
    if (const auto summary = v->find("summary"); summary != v->end() && !summary->is_null()) {
      if (!echo.contains("reasoning")) echo["reasoning"] = echo_defaults().at("reasoning");
      echo["reasoning"]["summary"] = string_at(*summary, "reasoning.summary");
    }
  }
  if (const json* v = given["metadata"]; v != nullptr && !v->is_null()) {
    require(*v, v->is_object(), "metadata", "an object of strings");
    if (v->size() > 16) refuse("invalid_parameter", "'metadata' holds at most 16 keys", "metadata");
    for (const auto& [key, value] : v->items()) {
      if (key.size() > 64 || !value.is_string() || value.get_ref<const std::string&>().size() > 512)
        refuse("invalid_parameter", "'metadata' maps keys of up to 64 characters to strings of up to 512",
               "metadata");
    }
    echo["metadata"] = *v;
  }
  if (const json* v = given["user"]; v != nullptr && !v->is_null()) {
    chat["user"] = string_at(*v, "user");
    echo["user"] = *v;
  }
  // Hints for OpenAI's own abuse checks and prompt cache, which the chat form
  // of most vendors has no member for: accepted, not sent on.
  for (const auto& [key, v] : {std::pair{"safety_identifier", given["safety_identifier"]},
                               std::pair{"prompt_cache_key", given["prompt_cache_key"]}}) {
    if (v != nullptr && !v->is_null()) string_at(*v, key);
  }
  if (const json* v = given["truncation"]; v != nullptr && !v->is_null()) {
    const std::string& t = string_at(*v, "truncation");
    if (t == "auto")
      unsupported("'truncation' auto is not served: the gateway does not drop input; send disabled",
                  "truncation");
    if (t != "disabled") refuse("invalid_parameter", "'truncation' must be disabled or auto", "truncation");
  }
  // store: OpenAI's default is true; a gateway whose storage keeps no
  // responses serves it absent or false, and says store: false.
  bool store = true;
  bool store_asked = false;
  if (const json* v = given["store"]; v != nullptr && !v->is_null()) {
    store = require(*v, v->is_boolean(), "store", "a boolean").get<bool>();
    store_asked = store;
  }
  if (store_asked && !options.keeps_responses) {
    unsupported("'store' true is not served: this gateway's storage keeps no responses; send store: false",
                "store");
  }
  out.store = store && options.keeps_responses;
  echo["store"] = out.store;
  if (const json* v = given["previous_response_id"]; v != nullptr && !v->is_null()) {
    if (!options.keeps_responses) {
      unsupported(
          "'previous_response_id' needs stored responses, which this gateway's storage does not keep; "
          "send the conversation's items in input",
          "previous_response_id");
    }
    const std::string& id = string_at(*v, "previous_response_id");
    if (id.empty() || id.size() > 128)
      refuse("invalid_parameter", "'previous_response_id' must be a response id (resp_...)",
             "previous_response_id");
    out.previous_response_id = id;
    echo["previous_response_id"] = id;
  }
  if (const json* v = given["background"]; v != nullptr && !v->is_null()) {
    if (require(*v, v->is_boolean(), "background", "a boolean").get<bool>())
      unsupported("'background' responses are not served", "background");
  }
  if (const json* v = given["prompt"]; v != nullptr && !v->is_null())
    unsupported(
        "'prompt' (a prompt stored at OpenAI) is not served; use the gateway's named prompts on "
        "/v1/chat/completions",
        "prompt");
  if (const json* v = given["include"]; v != nullptr && !v->is_null())
    require(*v, v->is_array(), "include", "an array");  // extra output the chat chain has none of
  if (const json* v = given["conversation"]; v != nullptr && !v->is_null())
    unsupported(
        "'conversation' needs stored conversations, which this gateway does not keep; send the "
        "conversation's items in input",
        "conversation");
  if (const json* v = given["client_metadata"]; v != nullptr && !v->is_null())
    require(*v, v->is_object(), "client_metadata", "an object");  // the client's own tags; not sent on
  if (const json* v = given["top_logprobs"]; v != nullptr && !v->is_null())
    unsupported("'top_logprobs' is not served on /v1/responses", "top_logprobs");
  if (const json* v = given["max_tool_calls"]; v != nullptr && !v->is_null()) {
    // It bounds built-in tool calls, which this gateway serves none of.
    if (!v->is_number_integer() || v->get<std::int64_t>() < 1)
      refuse("invalid_parameter", "'max_tool_calls' must be a positive integer", "max_tool_calls");
  }
  if (const json* v = given["prompt_cache_retention"]; v != nullptr && !v->is_null())
    string_at(*v, "prompt_cache_retention");  // a hint for OpenAI's cache; the chat form has none
  if (const json* v = given["stream_options"]; v != nullptr && !v->is_null())
    require(*v, v->is_object(), "stream_options", "an object");
  if (const json* v = given["service_tier"]; v != nullptr && !v->is_null()) string_at(*v, "service_tier");
  return out;
}

}  // namespace

// OpenAI's hosted tools: its own services, which no chat vendor runs. They
// are left out (the answer's X-Dropped-Tools header names them), so a client
// that offers them among its functions, as the Codex CLI does, is served.
bool is_hosted_tool(std::string_view type) {
  constexpr std::array<std::string_view, 9> kHosted = {"web_search",
                                                       "web_search_preview",
                                                       "file_search",
                                                       "code_interpreter",
                                                       "computer_use_preview",
                                                       "image_generation",
                                                       "mcp",
                                                       "local_shell",
                                                       "web_search_preview_2025_03_11"};
  for (auto h : kHosted) {
    if (type == h) return true;
  }
  return false;
}

std::variant<TranslatedRequest, errors::ApiError> translate_request(const nlohmann::json& body,
                                                                    TranslateOptions options) {
  try {
    return translate(body, options);
  } catch (Refused& r) {
    return std::move(r.error);
  }
}

json output_messages(const json& output_items) {
  json messages = json::array();
  if (!output_items.is_array()) return messages;
  for (const auto& item : output_items) {
    try {
      add_input(json::array({item}), messages);
    } catch (const Refused&) {
      // Not an item a conversation continues with: left out.
    }
  }
  return messages;
}

}  // namespace modelgw::responses
