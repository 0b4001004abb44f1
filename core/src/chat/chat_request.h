// Validation of a client's POST /v1/chat/completions body, before anything is
// sent upstream. Only what the gateway itself needs is checked here; the
// provider plugin translates the rest.
#pragma once

#include "errors/api_error.h"
#include "util/json_body.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace modelgw::chat {

// Nesting allowed in a request body; the provider ABI promises plugins this bound.
inline constexpr std::size_t kMaxJsonDepth = util::kMaxJsonDepth;

struct ChatRequest {
  nlohmann::json doc;  // the whole body, parsed once; read by the routing checks
  std::string model;
  bool stream = false;
  std::optional<std::int64_t> max_tokens;  // max_completion_tokens, else max_tokens
  // n: completions asked for. Each may use max_tokens of output, so every
  // hold covers this many times the output (the bound is the endpoint's).
  std::int64_t choices = 1;
};

// The chat checks on a parsed body: model, messages, stream, max_tokens, n.
std::variant<ChatRequest, errors::ApiError> check_chat_request(nlohmann::json doc);

// util::parse_json_object, then check_chat_request.
std::variant<ChatRequest, errors::ApiError> parse_chat_request(std::string_view body);

}  // namespace modelgw::chat
