#include "responses/native_request.h"

#include "chat/body_members.h"

#include "responses/response_object.h"
#include "responses/responses_request.h"

#include <algorithm>
#include <string>

namespace modelgw::responses {

using json = nlohmann::json;

namespace {

// A tool of OpenAI's own services (web_search, file_search...), which the
// gateway leaves out of every request it sends.
bool names_hosted_tool(const json& tool) {
  const auto type = tool.is_object() ? tool.find("type") : tool.end();
  return type != tool.end() && type->is_string() && is_hosted_tool(type->get_ref<const std::string&>());
}

}  // namespace

json native_request(json body, json history) {
  body.erase("previous_response_id");
  body["store"] = false;
  if (const auto tools = body.find("tools"); tools != body.end() && tools->is_array()) {
    json kept = json::array();
    for (auto& tool : *tools) {
      if (!names_hosted_tool(tool)) kept.push_back(std::move(tool));
    }
    *tools = std::move(kept);
  }
  if (!history.is_array() || history.empty()) return body;
  // The earlier turns, then this turn's input (a string is one user message).
  auto& input = body["input"];
  if (input.is_string()) {
    history.push_back(json{{"role", "user"}, {"content", std::move(input)}});
  } else if (input.is_array()) {
    for (auto& item : input) history.push_back(std::move(item));
  }
  input = std::move(history);
  return body;
}

std::string native_request_text(std::string_view text, const json& body) {
  if (!chat::opens_object(text) || body.contains("previous_response_id")) return {};
  if (const auto tools = body.find("tools"); tools != body.end() && tools->is_array()) {
    if (std::any_of(tools->begin(), tools->end(), names_hosted_tool)) return {};
  }
  if (const auto store = body.find("store");
      store != body.end() && store->is_boolean() && !store->get<bool>())
    return std::string(text);
  auto stored_false = chat::with_member(text, "store", "false");
  return stored_false ? std::move(*stored_false) : std::string();
}

void append_turn_items(json& items, const json& chat_input, const json& response_object) {
  for (auto& item : input_items(chat_input, "")) {
    item.erase("id");
    item.erase("status");
    items.push_back(std::move(item));
  }
  const auto output = response_object.is_object() ? response_object.find("output") : response_object.end();
  if (output == response_object.end() || !output->is_array()) return;
  for (const auto& item : *output) {
    if (!item.is_object()) continue;
    const auto type = item.find("type");
    if (type == item.end() || !type->is_string()) continue;
    const auto& t = type->get_ref<const std::string&>();
    if (t == "reasoning") {
      const auto sealed = item.find("encrypted_content");
      if (sealed == item.end() || !sealed->is_string() || sealed->get_ref<const std::string&>().empty())
        continue;
      json kept = item;
      kept.erase("status");
      items.push_back(std::move(kept));
    } else if (t == "message" || t == "function_call") {
      json kept = item;
      kept.erase("id");
      kept.erase("status");
      items.push_back(std::move(kept));
    }
  }
}

}  // namespace modelgw::responses
