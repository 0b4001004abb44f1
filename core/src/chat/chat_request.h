// Validation of a client's POST /v1/chat/completions body, before anything is
// sent upstream. Only what the gateway itself needs is checked here; the
// provider plugin translates the rest.
#pragma once

#include "http/api_error.h"

#include <string>
#include <string_view>
#include <variant>

namespace modelgw::chat {

// Nesting allowed in a request body; the provider ABI promises plugins this bound.
inline constexpr std::size_t kMaxJsonDepth = 64;

struct ChatRequest {
  std::string model;
  bool stream = false;
};

std::variant<ChatRequest, http::ApiError> parse_chat_request(std::string_view body);

}  // namespace modelgw::chat
