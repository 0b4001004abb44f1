#include "gemini_format.h"

#include <nlohmann/json.hpp>

#include "json_text.h"
#include "random_id.h"

namespace fake_upstream::gemini {
namespace {

// object[key], or nullptr.
const nlohmann::json* member(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// The REST API accepts both spellings of a field (proto JSON mapping).
const nlohmann::json* findEither(const nlohmann::json& object, const char* camel, const char* snake) {
  const auto* found = member(object, camel);
  return found != nullptr ? found : member(object, snake);
}

// text(c), appended to `out`.
void appendPartsText(const nlohmann::json& content, std::string& out) {
  const auto* parts = member(content, "parts");
  if (parts == nullptr || !parts->is_array()) return;
  bool first = true;
  for (const auto& part : *parts) {
    if (!part.is_object()) continue;
    const auto text = part.find("text");
    if (text == part.end() || !text->is_string()) continue;
    if (!first) out.push_back(' ');
    out.append(text->get_ref<const std::string&>());
    first = false;
  }
}

bool isUserTurn(const nlohmann::json& content) {
  if (!content.is_object()) return false;
  const auto role = content.find("role");
  return role == content.end() || *role == "user";
}

// A user turn with text rather than function results.
bool isUserText(const nlohmann::json& content) {
  if (!isUserTurn(content)) return false;
  const auto* parts = member(content, "parts");
  if (parts == nullptr || !parts->is_array()) return false;
  bool text = false;
  for (const auto& part : *parts) {
    if (!part.is_object()) continue;
    if (part.contains("functionResponse") || part.contains("function_response")) return false;
    if (part.contains("text")) text = true;
  }
  return text;
}

const nlohmann::json* firstFunctionName(const nlohmann::json& tools) {
  if (!tools.is_array()) return nullptr;
  for (const auto& tool : tools) {
    const auto* declarations = findEither(tool, "functionDeclarations", "function_declarations");
    if (declarations == nullptr || !declarations->is_array() || declarations->empty()) continue;
    const auto& first = declarations->front();
    if (!first.is_object()) return nullptr;
    const auto name = first.find("name");
    return name != first.end() && name->is_string() ? &*name : nullptr;
  }
  return nullptr;
}

bool callingDisabled(const nlohmann::json& body) {
  const auto* config = findEither(body, "toolConfig", "tool_config");
  if (config == nullptr) return false;
  const auto* calling = findEither(*config, "functionCallingConfig", "function_calling_config");
  if (calling == nullptr) return false;
  const auto* mode = member(*calling, "mode");
  return mode != nullptr && *mode == "NONE";
}

}  // namespace

Reply buildReply(const nlohmann::json& body, int words) {
  ReplyBuilder builder;
  thread_local std::string text;
  if (const auto* system = findEither(body, "systemInstruction", "system_instruction");
      system != nullptr && !system->is_null()) {
    text.clear();
    appendPartsText(*system, text);
    builder.addMessage(text, false);
  }
  for (const auto& content : body.at("contents")) {
    text.clear();
    appendPartsText(content, text);
    builder.addMessage(text, isUserTurn(content));
  }
  return builder.build(words);
}

std::optional<FunctionCall> functionCallFor(const nlohmann::json& body) {
  const auto* tools = member(body, "tools");
  const auto* name = tools == nullptr ? nullptr : firstFunctionName(*tools);
  if (name == nullptr || callingDisabled(body)) return std::nullopt;
  const auto& contents = body.at("contents");
  if (contents.empty() || !isUserText(contents.back())) return std::nullopt;
  FunctionCall call;
  call.name = name->get<std::string>();
  appendPartsText(contents.back(), call.query);
  return call;
}

ResponseMeta newResponseMeta(std::string_view model, bool usage) {
  ResponseMeta meta;
  meta.responseId.reserve(25);
  meta.responseId.append("fake-");
  appendRandomAlnum(meta.responseId, 20);
  meta.model = model;
  meta.usage = usage;
  return meta;
}

std::string_view ResponseBuilder::text(std::string_view text, const Reply* final) {
  begin();
  buf_.append("{\"text\":");
  appendJsonString(buf_, text);
  buf_.push_back('}');
  end(final);
  return buf_;
}

std::string_view ResponseBuilder::functionCall(const FunctionCall& call, const Reply& reply) {
  begin();
  buf_.append("{\"functionCall\":{\"name\":");
  appendJsonString(buf_, call.name);
  buf_.append(",\"args\":{\"query\":");
  appendJsonString(buf_, call.query);
  buf_.append("}}}");
  end(&reply);
  return buf_;
}

void ResponseBuilder::begin() {
  buf_.assign("{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[");
}

void ResponseBuilder::end(const Reply* final) {
  buf_.append("]},");
  if (final != nullptr) buf_.append("\"finishReason\":\"STOP\",");
  buf_.append("\"index\":0}]");
  if (final != nullptr && meta_.usage) {
    buf_.append(",\"usageMetadata\":{\"promptTokenCount\":");
    buf_.append(std::to_string(final->promptTokens));
    buf_.append(",\"candidatesTokenCount\":");
    buf_.append(std::to_string(final->completionTokens));
    buf_.append(",\"totalTokenCount\":");
    buf_.append(std::to_string(final->promptTokens + final->completionTokens));
    buf_.push_back('}');
  }
  buf_.append(",\"modelVersion\":");
  appendJsonString(buf_, meta_.model);
  buf_.append(",\"responseId\":");
  appendJsonString(buf_, meta_.responseId);
  buf_.push_back('}');
}

}  // namespace fake_upstream::gemini
