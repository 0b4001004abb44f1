#include "anthropic_errors.h"

#include "json_text.h"

namespace fake_upstream::anthropic {

std::string errorBody(std::string_view type, std::string_view message) {
  std::string out;
  out.reserve(message.size() + 64);
  out.append("{\"type\":\"error\",\"error\":{\"type\":");
  appendJsonString(out, type);
  out.append(",\"message\":");
  appendJsonString(out, message);
  out.append("}}");
  return out;
}

ErrorReply invalidApiKey() {
  return {401, errorBody("authentication_error", "invalid x-api-key")};
}

ErrorReply missingVersion() {
  return invalidRequest("anthropic-version: header is required");
}

ErrorReply invalidRequest(std::string_view message) {
  return {400, errorBody("invalid_request_error", message)};
}

ErrorReply promptTooLong() {
  return invalidRequest("prompt is too long: 250000 tokens > 200000 maximum");
}

ErrorReply creditBalanceTooLow() {
  return invalidRequest(
      "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade "
      "or purchase credits.");
}

std::string overloadedBody() {
  return errorBody("overloaded_error", "Overloaded");
}

ErrorReply errorForStatus(int status, std::string_view model) {
  switch (status) {
    case 400:
      return invalidRequest("Invalid request (fake_upstream injected status 400).");
    case 401:
      return invalidApiKey();
    case 402:
      return {402, errorBody("billing_error", "Your account has a billing issue.")};
    case 403:
      return {403, errorBody("permission_error",
                             "Your API key does not have permission to use the specified resource.")};
    case 404:
      return {404, errorBody("not_found_error", "model: " + std::string(model))};
    case 413:
      return {413, errorBody("request_too_large", "Request exceeds the maximum allowed number of bytes.")};
    case 429:
      return {429,
              errorBody("rate_limit_error",
                        "This request would exceed the rate limit for your organization (org-fake) of 50 "
                        "requests per minute. For details, refer to: "
                        "https://docs.anthropic.com/en/api/rate-limits. You can see the response headers "
                        "for current usage. Please reduce the prompt length or the maximum tokens "
                        "requested, or try again later.")};
    case 500:
      return {500, errorBody("api_error", "Internal server error")};
    case 504:
      return {504, errorBody("timeout_error", "Request timed out")};
    case 529:
      return {529, overloadedBody()};
    default:
      if (status >= 500) return {status, errorBody("api_error", "Internal server error")};
      return {status, errorBody("invalid_request_error", "Request failed (fake_upstream injected status " +
                                                             std::to_string(status) + ").")};
  }
}

}  // namespace fake_upstream::anthropic
