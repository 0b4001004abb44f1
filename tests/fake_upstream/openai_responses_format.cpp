#include "openai_responses_format.h"

#include <ctime>

#include "random_id.h"

namespace fake_upstream::openai::responses {
namespace {

std::string_view stringMember(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return {};
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                          : std::string_view();
}

bool isMessage(const nlohmann::json& item) {
  if (!item.is_object()) return false;
  const auto type = item.find("type");
  if (type == item.end()) return item.contains("role");
  return *type == "message";
}

// text(content) of a message item: a string, or its text parts joined.
void appendItemContent(const nlohmann::json& content, std::string& out) {
  if (content.is_string()) {
    out.append(content.get_ref<const std::string&>());
    return;
  }
  if (!content.is_array()) return;
  bool first = true;
  for (const auto& part : content) {
    const std::string_view type = stringMember(part, "type");
    if (type != "input_text" && type != "output_text" && type != "text") continue;
    const auto text = part.find("text");
    if (text == part.end() || !text->is_string()) continue;
    if (!first) out.push_back(' ');
    out.append(text->get_ref<const std::string&>());
    first = false;
  }
}

void appendItemText(const nlohmann::json& item, std::string& out) {
  if (isMessage(item)) {
    if (const auto content = item.find("content"); content != item.end()) appendItemContent(*content, out);
    return;
  }
  if (stringMember(item, "type") == "function_call_output") out.append(stringMember(item, "output"));
}

bool isUserText(const nlohmann::json& item) {
  if (!isMessage(item) || stringMember(item, "role") != "user") return false;
  std::string text;
  appendItemText(item, text);
  return !text.empty();
}

std::string randomId(std::string_view prefix) {
  std::string id(prefix);
  appendRandomAlnum(id, 32);
  return id;
}

Json usageJson(const Reply& reply) {
  return Json{{"input_tokens", reply.promptTokens},
              {"input_tokens_details", {{"cached_tokens", 0}}},
              {"output_tokens", reply.completionTokens},
              {"output_tokens_details", {{"reasoning_tokens", 0}}},
              {"total_tokens", reply.promptTokens + reply.completionTokens}};
}

}  // namespace

Reply buildReply(const nlohmann::json& body, int words) {
  ReplyBuilder builder;
  if (const auto it = body.find("instructions"); it != body.end() && it->is_string()) {
    builder.addMessage(it->get_ref<const std::string&>(), false);
  }
  const auto& input = body.at("input");
  if (input.is_string()) {
    builder.addMessage(input.get_ref<const std::string&>(), true);
    return builder.build(words);
  }
  thread_local std::string text;
  for (const auto& item : input) {
    if (stringMember(item, "type") == "reasoning") continue;
    text.clear();
    appendItemText(item, text);
    builder.addMessage(text, isMessage(item) && stringMember(item, "role") == "user");
  }
  return builder.build(words);
}

std::optional<FunctionCall> functionCallFor(const nlohmann::json& body) {
  const auto tools = body.find("tools");
  if (tools == body.end() || !tools->is_array() || tools->empty()) return std::nullopt;
  const auto& first = tools->front();
  if (stringMember(first, "type") != "function" || stringMember(first, "name").empty()) return std::nullopt;
  if (const auto choice = body.find("tool_choice"); choice != body.end() && *choice == "none") {
    return std::nullopt;
  }
  const auto& input = body.at("input");
  std::string query;
  if (input.is_string()) {
    query = input.get<std::string>();
  } else if (!input.empty() && isUserText(input.back())) {
    appendItemText(input.back(), query);
  } else {
    return std::nullopt;
  }
  FunctionCall call;
  call.name = std::string(stringMember(first, "name"));
  call.arguments = nlohmann::json{{"query", query}}.dump();
  return call;
}

ResponseMeta newResponseMeta(std::string_view model, const nlohmann::json& body, bool usage) {
  ResponseMeta meta;
  meta.id = randomId("resp_");
  meta.messageId = randomId("msg_");
  meta.reasoningId = randomId("rs_");
  meta.callItemId = randomId("fc_");
  meta.createdAt = static_cast<int64_t>(std::time(nullptr));
  meta.model = model;
  const auto reasoning = body.find("reasoning");
  meta.reasoning = reasoning != body.end() && !reasoning->is_null();
  if (const auto include = body.find("include"); include != body.end() && include->is_array()) {
    for (const auto& what : *include) {
      if (what == "reasoning.encrypted_content") meta.encrypted = true;
    }
  }
  meta.usage = usage;
  return meta;
}

Json reasoningItem(const ResponseMeta& meta) {
  Json item = {{"id", meta.reasoningId}, {"type", "reasoning"}, {"summary", Json::array()}};
  if (meta.encrypted) item["encrypted_content"] = "gAAAAAfake-encrypted-reasoning-" + meta.reasoningId;
  return item;
}

Json messageItem(const ResponseMeta& meta, std::string_view text, std::string_view status) {
  Json content = Json::array();
  if (status == "completed") {
    content.push_back(Json{{"type", "output_text"},
                           {"annotations", Json::array()},
                           {"logprobs", Json::array()},
                           {"text", text}});
  }
  return Json{{"id", meta.messageId},
              {"type", "message"},
              {"status", status},
              {"content", std::move(content)},
              {"role", "assistant"}};
}

Json functionCallItem(const ResponseMeta& meta, const FunctionCall& call, std::string_view arguments,
                      std::string_view status) {
  return Json{{"id", meta.callItemId},  {"type", "function_call"}, {"status", status},
              {"arguments", arguments}, {"call_id", kCallId},      {"name", call.name}};
}

Json responseObject(const ResponseMeta& meta, std::string_view status, Json output, const Reply* usage) {
  Json r = {{"id", meta.id},
            {"object", "response"},
            {"created_at", meta.createdAt},
            {"status", status},
            {"error", nullptr},
            {"incomplete_details", nullptr},
            {"model", meta.model},
            {"output", std::move(output)},
            {"parallel_tool_calls", true},
            {"previous_response_id", nullptr},
            {"store", false},
            {"usage", nullptr}};
  if (usage != nullptr && meta.usage) r["usage"] = usageJson(*usage);
  return r;
}

Json completedResponse(const ResponseMeta& meta, const Reply& reply, const FunctionCall* call) {
  Json output = Json::array();
  if (meta.reasoning) output.push_back(reasoningItem(meta));
  if (call != nullptr) {
    output.push_back(functionCallItem(meta, *call, call->arguments, "completed"));
  } else {
    output.push_back(messageItem(meta, reply.text, "completed"));
  }
  return responseObject(meta, "completed", std::move(output), &reply);
}

Json serverError() {
  return Json{{"code", "server_error"},
              {"message", "The server had an error while processing your request."}};
}

std::string EventBuilder::make(std::string_view type, Json fields) {
  Json event = {{"type", type}, {"sequence_number", next_++}};
  for (auto it = fields.begin(); it != fields.end(); ++it) event[it.key()] = std::move(it.value());
  return event.dump();
}

}  // namespace fake_upstream::openai::responses
