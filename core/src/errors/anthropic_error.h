// The error envelope of Anthropic's Messages API, for the calls that come
// through its door (/v1/messages, /v1/messages/count_tokens), so that the
// @anthropic-ai/sdk's error classes hold:
//   {"type":"error","error":{"type":...,"message":...,
//    "code","param","request_id"},"request_id":...}
// The inner object's `type` is Anthropic's name for the status; `code`,
// `param` and `request_id` are the spec's (section 7), kept beside it so the
// gateway's own contract holds on this door too.
#pragma once

#include "errors/api_error.h"

#include <string>
#include <string_view>

namespace modelgw::errors {

// Anthropic's error type for an HTTP status (invalid_request_error,
// authentication_error, permission_error, not_found_error, request_too_large,
// rate_limit_error, billing_error, api_error, timeout_error, overloaded_error).
std::string_view anthropic_error_type(int status);

// The whole answer's body.
std::string anthropic_error_envelope(const ApiError& error, std::string_view request_id);

// The data of a stream's `event: error` (the same object; Anthropic sends the
// same shape on a stream).
inline std::string anthropic_error_event_data(const ApiError& error, std::string_view request_id) {
  return anthropic_error_envelope(error, request_id);
}

}  // namespace modelgw::errors
