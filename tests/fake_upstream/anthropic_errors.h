// Anthropic's error responses: {"type":"error","error":{"type":...,
// "message":...}}, with the types and messages the real Messages API uses.
#pragma once

#include <string>
#include <string_view>

#include "error_reply.h"

namespace fake_upstream::anthropic {

std::string errorBody(std::string_view type, std::string_view message);

// 401 authentication_error "invalid x-api-key".
ErrorReply invalidApiKey();

// 400 invalid_request_error "anthropic-version: header is required".
ErrorReply missingVersion();

// 400 invalid_request_error with `message`.
ErrorReply invalidRequest(std::string_view message);

// The error Anthropic answers for `status` (status=N directive).
ErrorReply errorForStatus(int status, std::string_view model);

// context: 400 "prompt is too long: 250000 tokens > 200000 maximum".
ErrorReply promptTooLong();

// quota: 400 "Your credit balance is too low ..." (Anthropic's billing
// error is a 400 invalid_request_error, not a 429).
ErrorReply creditBalanceTooLow();

// The overloaded_error body, also what error200 sends (as a 200 body, or as
// the data of an `event: error` mid-stream).
std::string overloadedBody();

}  // namespace fake_upstream::anthropic
