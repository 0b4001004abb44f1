#include "candidate_mapper.h"

#include <array>

namespace mgw::gemini {

using namespace mgw::provider;

std::size_t CandidateParts::generated_bytes() const noexcept {
  std::size_t bytes = text.size();
  for (const auto& c : calls) {
    bytes += c.arguments.size();
  }
  return bytes;
}

CandidateParts read_parts(const Json& candidate) {
  CandidateParts out;
  const Json* content = member(candidate, "content");
  const Json* parts = content == nullptr ? nullptr : member(*content, "parts");
  if (parts == nullptr || !parts->is_array()) {
    return out;  // e.g. a candidate stopped for SAFETY carries no content
  }
  for (const Json& part : *parts) {
    if (!part.is_object()) {
      continue;
    }
    if (const Json* thought = member(part, "thought"); thought != nullptr && *thought == true) {
      continue;
    }
    if (const Json* text = member(part, "text"); text != nullptr && text->is_string()) {
      out.text += text->get_ref<const std::string&>();
      out.has_text = true;
    }
    if (const Json* call = member(part, "functionCall"); call != nullptr && call->is_object()) {
      FunctionCall fc;
      fc.id = std::string(string_member(*call, "id"));
      fc.name = std::string(string_member(*call, "name"));
      const Json* args = member(*call, "args");
      fc.arguments = args == nullptr ? "{}" : dump(*args);
      out.calls.push_back(std::move(fc));
    }
    // executableCode, codeExecutionResult, inlineData, …: no OpenAI chat
    // counterpart, and the gateway never asks for them.
  }
  return out;
}

int64_t candidate_index(const Json& candidate, std::size_t position) {
  if (const Json* index = member(candidate, "index"); index != nullptr && index->is_number_integer()) {
    return index->get<int64_t>();
  }
  return static_cast<int64_t>(position);
}

std::string_view finish_reason(std::string_view gemini_reason, bool has_tool_calls) noexcept {
  static constexpr std::array<std::string_view, 6> kFiltered = {
      "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"};
  if (gemini_reason == "MAX_TOKENS") {
    return "length";
  }
  for (std::string_view f : kFiltered) {
    if (gemini_reason == f) {
      return "content_filter";
    }
  }
  // STOP, and the rest (OTHER, LANGUAGE, MALFORMED_FUNCTION_CALL, …): the
  // model stopped; OpenAI clients run tools only on "tool_calls".
  if (gemini_reason == "STOP" && has_tool_calls) {
    return "tool_calls";
  }
  return "stop";
}

std::string tool_call_id(const FunctionCall& call, int64_t candidate, int64_t k) {
  if (!call.id.empty()) {
    return call.id;
  }
  return "call_" + std::to_string(candidate) + "_" + std::to_string(k);
}

Json tool_call_json(const FunctionCall& call, std::string id, int64_t stream_index) {
  Json j = Json::object();
  if (stream_index >= 0) {
    j["index"] = stream_index;
  }
  j["id"] = std::move(id);
  j["type"] = "function";
  j["function"] = Json{{"name", call.name}, {"arguments", call.arguments}};
  return j;
}

}  // namespace mgw::gemini
