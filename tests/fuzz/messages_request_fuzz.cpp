// The reading of a client's POST /v1/messages body: the JSON checks
// (util/json_body.h) and the Messages translation to a chat request
// (messages/messages_request.h), with max_tokens required and, as for
// /v1/messages/count_tokens, optional. Input: the body as sent.
//
// Checks: nothing throws; a refusal is a 400 with a code, a bounded message
// and param, and an Anthropic envelope that is valid JSON; an accepted body
// becomes a chat request with the same model, at least one message, a
// positive max_tokens (unless counting), and a document that serialises
// (what the chain sends on); a body accepted with max_tokens required is
// accepted when counting too.
#include "errors/anthropic_error.h"
#include "errors/api_error.h"
#include "messages/messages_request.h"
#include "util/json_body.h"

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
  std::fprintf(stderr, "FUZZ FINDING (messages request): %s\n", what.c_str());
  std::abort();
}

void check_refusal(const modelgw::errors::ApiError& e) {
  constexpr std::size_t kMax = 2048;  // excerpts bound what a client's bytes can add
  if (e.status != 400 || e.code.empty() || e.message.empty())
    finding("a refusal " + std::to_string(e.status) + " '" + e.code + "' with message '" + e.message + "'");
  if (e.message.size() > kMax || e.param.size() > kMax)
    finding("a refusal message or param of " + std::to_string(e.message.size() + e.param.size()) + " bytes");
  if (!json::accept(modelgw::errors::anthropic_error_envelope(e, "req_fuzz")))
    finding("an error envelope that is not JSON");
}

// Whether `doc` was accepted; checks what it became.
bool accepted(const json& doc, bool counting) {
  auto translated = modelgw::messages::translate_messages(doc, modelgw::messages::MessagesOptions{counting});
  if (const auto* refusal = std::get_if<modelgw::errors::ApiError>(&translated)) {
    check_refusal(*refusal);
    return false;
  }
  const auto& t = std::get<modelgw::messages::TranslatedMessages>(translated);
  if (!t.chat.is_object() || t.chat.value("model", json()) != doc.at("model") || t.alias != doc.at("model"))
    finding("the chat request's model");
  if (!t.chat.contains("messages") || !t.chat["messages"].is_array() || t.chat["messages"].empty())
    finding("a chat request without messages");
  if (!counting && (!t.chat.contains("max_tokens") || t.chat["max_tokens"].get<std::int64_t>() < 1))
    finding("a chat request without a positive max_tokens");
  if (t.stream != t.chat.value("stream", false)) finding("stream and the chat request's stream differ");
  if (!json::accept(t.chat.dump(-1, ' ', false, json::error_handler_t::replace)))
    finding("the chat request does not serialise to JSON");
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  auto parsed = modelgw::util::parse_json_object(body, "model, max_tokens and messages");
  if (const auto* refusal = std::get_if<modelgw::errors::ApiError>(&parsed)) {
    check_refusal(*refusal);
    return 0;
  }
  const json doc = std::get<json>(parsed);
  if (accepted(doc, false) && !accepted(doc, true)) finding("a body accepted, but refused for counting");
  return 0;
}
