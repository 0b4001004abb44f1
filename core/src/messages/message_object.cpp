#include "messages/message_object.h"
#include "util/json_write.h"

#include <algorithm>

namespace modelgw::messages {
namespace {

using nlohmann::json;

std::string_view request_suffix(std::string_view request_id) {
  constexpr std::string_view kPrefix = "req_";
  return request_id.substr(0, kPrefix.size()) == kPrefix ? request_id.substr(kPrefix.size()) : request_id;
}

std::int64_t count_member(const json& object, const char* key) {
  if (!object.is_object()) return 0;
  const auto v = object.find(key);
  return v != object.end() && v->is_number_integer() ? std::max<std::int64_t>(v->get<std::int64_t>(), 0) : 0;
}

std::string text_member(const json& object, const char* key) {
  if (!object.is_object()) return {};
  const auto v = object.find(key);
  return v != object.end() && v->is_string() ? v->get<std::string>() : std::string();
}

// A message's content: a string, or text parts joined.
std::string content_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  std::string text;
  if (v.is_array()) {
    for (const auto& part : v) text += text_member(part, "text");
  }
  return text;
}

}  // namespace

json anthropic_usage(const MessageUsage& u) {
  // A plugin's counts are not trusted to be sane: none below 0, and the
  // subtraction cannot overflow.
  const auto count = [](std::int64_t v) { return std::max<std::int64_t>(v, 0); };
  const std::int64_t read = count(u.cache_read);
  const std::int64_t write = count(u.cache_write);
  std::int64_t input = count(u.prompt);
  input -= std::min(input, read);
  input -= std::min(input, write);
  return json{{"input_tokens", input},
              {"cache_creation_input_tokens", write},
              {"cache_read_input_tokens", read},
              {"output_tokens", count(u.completion)}};
}

MessageUsage usage_of_chat(const json& chat_usage) {
  MessageUsage u;
  u.prompt = count_member(chat_usage, "prompt_tokens");
  u.completion = count_member(chat_usage, "completion_tokens");
  if (chat_usage.is_object()) {
    if (const auto d = chat_usage.find("prompt_tokens_details"); d != chat_usage.end())
      u.cache_read = count_member(*d, "cached_tokens");
  }
  return u;
}

std::string message_id(std::string_view request_id) {
  return "msg_" + std::string(request_suffix(request_id));
}

std::string tool_use_id(std::string_view request_id, std::size_t n) {
  return "toolu_" + std::string(request_suffix(request_id)) + "_" + std::to_string(n);
}

std::string_view stop_reason_for(std::string_view finish_reason) {
  if (finish_reason == "length") return "max_tokens";
  if (finish_reason == "tool_calls" || finish_reason == "function_call") return "tool_use";
  if (finish_reason == "content_filter") return "refusal";
  return "end_turn";
}

json tool_input(std::string_view arguments, bool& parsed) {
  json input = json::parse(arguments, nullptr, false);
  parsed = input.is_object() || (arguments.find_first_not_of(" \t\r\n") == std::string_view::npos);
  return input.is_object() ? input : json::object();
}

std::optional<std::string> whole_message(std::string_view chat_completion, std::string_view alias,
                                         std::string_view request_id, std::size_t* unparsed_arguments) {
  const json chat = json::parse(chat_completion, nullptr, false);
  if (!chat.is_object()) return std::nullopt;
  const auto choices = chat.find("choices");
  if (choices == chat.end() || !choices->is_array() || choices->empty() || !(*choices)[0].is_object())
    return std::nullopt;
  const json& choice = (*choices)[0];
  const auto message = choice.find("message");
  if (message == choice.end() || !message->is_object()) return std::nullopt;

  json content = json::array();
  // Reasoning comes first, as Anthropic's thinking blocks do. No provider
  // in the chat form signs it: the signature is empty.
  if (const std::string thinking = text_member(*message, "reasoning_content"); !thinking.empty())
    content.push_back(json{{"type", "thinking"}, {"thinking", thinking}, {"signature", ""}});
  std::string text;
  if (const auto c = message->find("content"); c != message->end()) text = content_text(*c);
  if (text.empty()) text = text_member(*message, "refusal");
  if (!text.empty()) content.push_back(json{{"type", "text"}, {"text", std::move(text)}});
  std::size_t unparsed = 0;
  if (const auto calls = message->find("tool_calls"); calls != message->end() && calls->is_array()) {
    for (std::size_t i = 0; i < calls->size(); ++i) {
      const json& call = (*calls)[i];
      if (!call.is_object() || !call.contains("function") || !call["function"].is_object()) continue;
      const json& function = call["function"];
      bool parsed = true;
      json input = tool_input(text_member(function, "arguments"), parsed);
      if (!parsed) ++unparsed;
      std::string id = text_member(call, "id");
      if (id.empty()) id = tool_use_id(request_id, i);
      content.push_back(json{{"type", "tool_use"},
                             {"id", std::move(id)},
                             {"name", text_member(function, "name")},
                             {"input", std::move(input)}});
    }
  }
  if (unparsed_arguments != nullptr) *unparsed_arguments = unparsed;
  const std::string finish = text_member(choice, "finish_reason");
  json m{{"id", message_id(request_id)},
         {"type", "message"},
         {"role", "assistant"},
         {"content", std::move(content)},
         // The model that served (a tier's), as the chain names it.
         {"model", chat.contains("model") && chat["model"].is_string() ? chat["model"].get<std::string>()
                                                                       : std::string(alias)},
         {"stop_reason", stop_reason_for(finish)},
         {"stop_sequence", nullptr},
         {"usage", anthropic_usage(chat.contains("usage") ? usage_of_chat(chat["usage"]) : MessageUsage{})},
         {"request_id", request_id}};
  return util::json_text(m);
}

}  // namespace modelgw::messages
