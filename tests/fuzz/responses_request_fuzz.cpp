// The reading of a client's POST /v1/responses body: the JSON checks
// (chat/chat_request.h) and the Responses translation to a chat request
// (responses/responses_request.h). Input: the body as sent.
//
// Checks: nothing throws; a refusal is a 400 or a 422 with a code, a bounded
// message and param, and an envelope that is valid JSON; an accepted body
// becomes a chat request with the same model, at least one message, and a
// document that serialises (what the chain sends on).
#include "chat/chat_request.h"
#include "errors/api_error.h"
#include "responses/responses_request.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

namespace {

using nlohmann::json;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "FUZZ FINDING (responses request): %s\n", what.c_str());
  std::abort();
}

void check_refusal(const modelgw::errors::ApiError& e) {
  constexpr std::size_t kMax = 2048;  // excerpts bound what a client's bytes can add
  if ((e.status != 400 && e.status != 422) || e.code.empty() || e.message.empty())
    finding("a refusal " + std::to_string(e.status) + " '" + e.code + "' with message '" + e.message + "'");
  if (e.message.size() > kMax || e.param.size() > kMax)
    finding("a refusal message or param of " + std::to_string(e.message.size() + e.param.size()) + " bytes");
  if (!json::accept(modelgw::errors::error_envelope(e, "req_fuzz")))
    finding("an error envelope that is not JSON");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  auto parsed = modelgw::util::parse_json_object(body, "model and input");
  if (const auto* refusal = std::get_if<modelgw::errors::ApiError>(&parsed)) {
    check_refusal(*refusal);
    return 0;
  }
  const json doc = std::get<json>(parsed);
  auto translated = modelgw::responses::translate_request(doc);
  if (const auto* refusal = std::get_if<modelgw::errors::ApiError>(&translated)) {
    check_refusal(*refusal);
    return 0;
  }
  const auto& t = std::get<modelgw::responses::TranslatedRequest>(translated);
  if (!t.chat.is_object() || t.chat.value("model", json()) != doc.at("model"))
    finding("the chat request's model");
  if (!t.chat.contains("messages") || !t.chat["messages"].is_array() || t.chat["messages"].empty())
    finding("a chat request without messages");
  if (!t.echo.is_object()) finding("the echo is not an object");
  const std::string text = t.chat.dump();
  if (!json::accept(text)) finding("the chat request does not serialise to JSON");
  return 0;
}
