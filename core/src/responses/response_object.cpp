#include "responses/response_object.h"

#include "responses/responses_request.h"
#include "util/json_write.h"

namespace modelgw::responses {
namespace {

using nlohmann::json;

std::string_view id_suffix(std::string_view request_id) {
  constexpr std::string_view kPrefix = "req_";
  return request_id.substr(0, kPrefix.size()) == kPrefix ? request_id.substr(kPrefix.size()) : request_id;
}

std::int64_t int_at(const json& object, const char* key) {
  return int_member(object, key, 0);
}

std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  std::string text;
  if (v.is_array()) {
    for (const auto& part : v) {
      if (part.is_object() && part.contains("text") && part["text"].is_string())
        text += part["text"].get<std::string>();
    }
  }
  return text;
}

}  // namespace

std::string string_member(const json& object, const char* key) {
  if (!object.is_object()) return {};
  const auto v = object.find(key);
  return v != object.end() && v->is_string() ? v->get<std::string>() : std::string();
}

std::int64_t int_member(const json& object, const char* key, std::int64_t fallback) {
  if (!object.is_object()) return fallback;
  const auto v = object.find(key);
  return v != object.end() && v->is_number_integer() ? v->get<std::int64_t>() : fallback;
}

void name_function_call(json& item, const json& echo) {
  const std::string name = string_member(item, "name");
  const auto at = name.find(kNamespaceSeparator);
  if (at == std::string::npos || !echo.is_object() || !echo.contains("tools") || !echo["tools"].is_array())
    return;
  const std::string ns = name.substr(0, at);
  for (const auto& tool : echo["tools"]) {
    if (string_member(tool, "type") == "namespace" && string_member(tool, "name") == ns) {
      item["namespace"] = ns;
      item["name"] = name.substr(at + kNamespaceSeparator.size());
      return;
    }
  }
}

std::string response_id(std::string_view request_id) {
  return "resp_" + std::string(id_suffix(request_id));
}
std::string message_id(std::string_view request_id) {
  return "msg_" + std::string(id_suffix(request_id));
}
std::string function_call_id(std::string_view request_id, std::size_t n) {
  return "fc_" + std::string(id_suffix(request_id)) + "_" + std::to_string(n);
}

json responses_usage(std::int64_t input, std::int64_t output, std::int64_t cached, std::int64_t reasoning) {
  return json{{"input_tokens", input},
              {"input_tokens_details", {{"cached_tokens", cached}}},
              {"output_tokens", output},
              {"output_tokens_details", {{"reasoning_tokens", reasoning}}},
              {"total_tokens", input + output}};
}

json responses_usage(const json& chat_usage) {
  if (!chat_usage.is_object()) return nullptr;
  std::int64_t cached = 0;
  std::int64_t reasoning = 0;
  if (const auto d = chat_usage.find("prompt_tokens_details"); d != chat_usage.end() && d->is_object())
    cached = int_at(*d, "cached_tokens");
  if (const auto d = chat_usage.find("completion_tokens_details"); d != chat_usage.end() && d->is_object())
    reasoning = int_at(*d, "reasoning_tokens");
  return responses_usage(int_at(chat_usage, "prompt_tokens"), int_at(chat_usage, "completion_tokens"), cached,
                         reasoning);
}

json response_skeleton(const json& echo, std::string_view request_id, std::int64_t created_at,
                       std::string_view model, std::string_view status) {
  json r = full_echo(echo);
  r["id"] = response_id(request_id);
  r["object"] = "response";
  r["created_at"] = created_at;
  r["status"] = status;
  r["model"] = model;
  r["error"] = nullptr;
  r["incomplete_details"] = nullptr;
  r["output"] = json::array();
  r["usage"] = nullptr;
  r["request_id"] = request_id;
  return r;
}

void apply_finish_reason(json& response, std::string_view finish_reason) {
  if (finish_reason == "length") {
    response["status"] = "incomplete";
    response["incomplete_details"] = json{{"reason", "max_output_tokens"}};
  } else if (finish_reason == "content_filter") {
    response["status"] = "incomplete";
    response["incomplete_details"] = json{{"reason", "content_filter"}};
  } else {
    response["status"] = "completed";
  }
}

json input_items(const json& chat_messages, std::string_view response_id) {
  json items = json::array();
  if (!chat_messages.is_array()) return items;
  const std::string suffix(response_id.substr(0, 5) == "resp_" ? response_id.substr(5) : response_id);
  std::size_t n = 0;
  const auto next_id = [&](const char* prefix) {
    return std::string(prefix) + suffix + "_" + std::to_string(n++);
  };
  for (const auto& m : chat_messages) {
    if (!m.is_object()) continue;
    const std::string role = string_member(m, "role");
    if (role == "tool") {
      items.push_back(json{{"type", "function_call_output"},
                           {"id", next_id("fco_")},
                           {"call_id", string_member(m, "tool_call_id")},
                           {"output", text_of(m.value("content", json()))},
                           {"status", "completed"}});
      continue;
    }
    const bool assistant = role == "assistant";
    json content = json::array();
    const json text = m.contains("content") ? m["content"] : json();
    if (text.is_string() && !(assistant && text.get_ref<const std::string&>().empty())) {
      content.push_back(assistant
                            ? json{{"type", "output_text"}, {"text", text}, {"annotations", json::array()}}
                            : json{{"type", "input_text"}, {"text", text}});
    } else if (text.is_array()) {
      for (const auto& part : text) {
        const std::string type = string_member(part, "type");
        if (type == "text") {
          content.push_back(json{{"type", assistant ? "output_text" : "input_text"},
                                 {"text", string_member(part, "text")}});
        } else if (type == "image_url" && part.contains("image_url") && part["image_url"].is_object()) {
          json image{{"type", "input_image"}, {"image_url", string_member(part["image_url"], "url")}};
          image["detail"] = part["image_url"].contains("detail") ? part["image_url"]["detail"] : json("auto");
          content.push_back(std::move(image));
        } else if (type == "file" && part.contains("file")) {
          json file = part["file"];
          file["type"] = "input_file";
          content.push_back(std::move(file));
        }
      }
    }
    if (!content.empty()) {
      items.push_back(json{{"type", "message"},
                           {"id", next_id("msg_")},
                           {"role", role},
                           {"content", std::move(content)},
                           {"status", "completed"}});
    }
    if (assistant && m.contains("tool_calls") && m["tool_calls"].is_array()) {
      for (const auto& call : m["tool_calls"]) {
        const json function =
            call.is_object() && call.contains("function") ? call["function"] : json::object();
        items.push_back(json{{"type", "function_call"},
                             {"id", next_id("fc_")},
                             {"call_id", string_member(call, "id")},
                             {"name", string_member(function, "name")},
                             {"arguments", string_member(function, "arguments")},
                             {"status", "completed"}});
      }
    }
  }
  return items;
}

std::optional<std::string> whole_response(std::string_view chat_completion, const json& echo,
                                          std::string_view request_id) {
  const json chat = json::parse(chat_completion, nullptr, false);
  if (!chat.is_object()) return std::nullopt;
  const auto choices = chat.find("choices");
  if (choices == chat.end() || !choices->is_array() || choices->empty() || !(*choices)[0].is_object())
    return std::nullopt;
  const json& choice = (*choices)[0];
  const auto message = choice.find("message");
  if (message == choice.end() || !message->is_object()) return std::nullopt;

  const auto model = chat.find("model");
  json r = response_skeleton(
      echo, request_id, int_at(chat, "created"),
      model != chat.end() && model->is_string() ? model->get_ref<const std::string&>() : "", "completed");
  json& output = r["output"];
  json content = json::array();
  if (const auto text = message->find("content"); text != message->end() && !text->is_null()) {
    content.push_back(
        json{{"type", "output_text"}, {"text", text_of(*text)}, {"annotations", json::array()}});
  }
  if (const auto refusal = message->find("refusal"); refusal != message->end() && refusal->is_string()) {
    content.push_back(json{{"type", "refusal"}, {"refusal", *refusal}});
  }
  if (!content.empty()) {
    output.push_back(json{{"type", "message"},
                          {"id", message_id(request_id)},
                          {"status", "completed"},
                          {"role", "assistant"},
                          {"content", std::move(content)}});
  }
  if (const auto calls = message->find("tool_calls"); calls != message->end() && calls->is_array()) {
    for (std::size_t i = 0; i < calls->size(); ++i) {
      const json& call = (*calls)[i];
      if (!call.is_object() || !call.contains("function") || !call["function"].is_object()) continue;
      const json& function = call["function"];
      json item{{"type", "function_call"},
                {"id", function_call_id(request_id, i)},
                {"call_id", string_member(call, "id")},
                {"name", string_member(function, "name")},
                {"arguments", string_member(function, "arguments")},
                {"status", "completed"}};
      name_function_call(item, echo);
      output.push_back(std::move(item));
    }
  }
  const auto finish = choice.find("finish_reason");
  apply_finish_reason(
      r, finish != choice.end() && finish->is_string() ? finish->get_ref<const std::string&>() : "");
  if (const auto usage = chat.find("usage"); usage != chat.end()) r["usage"] = responses_usage(*usage);
  return util::json_text(r);
}

}  // namespace modelgw::responses
