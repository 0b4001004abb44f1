// Why a client request cannot go to Anthropic.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mgw::anthropic {

// Thrown by the request translators and caught once, in build_request: a
// refusal can arise deep inside one content part of one message, and carrying
// a result through every level would bury the translation in plumbing. Not a
// std::exception, so nothing but build_request mistakes it for a failure.
struct Rejection {
  int32_t http_status;
  std::string_view code;  // "invalid_parameter" or "unsupported_parameter"
  std::string message;    // for the client: names the parameter, quotes nothing secret
  std::string param;      // e.g. "messages[2].content[0]"
};

// 400 invalid_parameter: the request is malformed for the chat API itself.
[[noreturn]] inline void reject_invalid(std::string param, std::string message) {
  throw Rejection{400, "invalid_parameter", std::move(message), std::move(param)};
}

// 422 unsupported_parameter: well-formed, but Anthropic cannot do it (spec §7.3).
[[noreturn]] inline void reject_unsupported(std::string param, std::string message) {
  throw Rejection{422, "unsupported_parameter", std::move(message), std::move(param)};
}

}  // namespace mgw::anthropic
