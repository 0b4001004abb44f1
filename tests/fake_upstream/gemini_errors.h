// Gemini's error responses, google.rpc.Status as JSON:
// {"error":{"code":N,"message":...,"status":"<CANONICAL_CODE>","details":[...]}}
// with the messages and details the real generativelanguage API sends.
#pragma once

#include <string>
#include <string_view>

#include "error_reply.h"

namespace fake_upstream::gemini {

// 400 INVALID_ARGUMENT "API key not valid. Please pass a valid API key." with
// a google.rpc.ErrorInfo detail, reason API_KEY_INVALID (what Google answers
// for a wrong or missing key).
ErrorReply apiKeyInvalid();

// 400 INVALID_ARGUMENT with `message`.
ErrorReply invalidArgument(std::string_view message);

// The error Gemini answers for `status` (status=N directive). A 429 carries
// a google.rpc.RetryInfo detail with retryDelay "<retryDelaySeconds>s".
// `method` is generateContent or streamGenerateContent (404 names it).
ErrorReply errorForStatus(int status, std::string_view model, std::string_view method, int retryDelaySeconds);

// quota: 429 RESOURCE_EXHAUSTED for a per-day quota, without RetryInfo.
ErrorReply dailyQuotaExceeded(std::string_view model);

// context: 400 INVALID_ARGUMENT "The input token count (1048577) exceeds the
// maximum number of tokens allowed (1048576)."
ErrorReply inputTooLong();

// {"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}},
// what error200 sends as a 200 body or as a stream event.
std::string internalErrorBody();

}  // namespace fake_upstream::gemini
