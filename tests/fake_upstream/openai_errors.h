// OpenAI's error responses, with the bodies the real API sends, so the
// gateway's error mapping is tested against the shapes it will meet.
#pragma once

#include <string>
#include <string_view>

#include "error_reply.h"

namespace fake_upstream::openai {

// {"error":{"message":...,"type":...,"param":...,"code":...}}; a nullptr
// param or code is written as null.
std::string errorBody(std::string_view message, std::string_view type, const char* param, const char* code);

// 401 invalid_api_key. The message shows a masked, key-like fragment
// ("sk-ab***yz") on purpose: gateway tests check it never reaches a client.
ErrorReply invalidApiKey();

// 400 invalid_request_error with the given message and param.
ErrorReply invalidRequest(std::string_view message, const char* param);

// The error OpenAI answers for `status` (status=N directive). `retryAfter`
// goes into the 429 message.
ErrorReply errorForStatus(int status, std::string_view model, int retryAfter);

ErrorReply insufficientQuota();      // quota
ErrorReply contextLengthExceeded();  // context
std::string serverErrorBody();       // the 500 body, also used by error200

// 404 for any path or method the fake does not serve, worded like OpenAI.
ErrorReply invalidUrl(std::string_view method, std::string_view path);

}  // namespace fake_upstream::openai
