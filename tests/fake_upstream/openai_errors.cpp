#include "openai_errors.h"

#include "json_text.h"

namespace fake_upstream::openai {

std::string errorBody(std::string_view message, std::string_view type, const char* param, const char* code) {
  std::string out;
  out.reserve(message.size() + 96);
  out.append("{\"error\":{\"message\":");
  appendJsonString(out, message);
  out.append(",\"type\":");
  appendJsonString(out, type);
  out.append(",\"param\":");
  appendJsonStringOrNull(out, param);
  out.append(",\"code\":");
  appendJsonStringOrNull(out, code);
  out.append("}}");
  return out;
}

ErrorReply invalidApiKey() {
  return {401, errorBody("Incorrect API key provided: sk-ab***yz. You can find your API key at "
                         "https://platform.openai.com/account/api-keys.",
                         "invalid_request_error", nullptr, "invalid_api_key")};
}

ErrorReply invalidRequest(std::string_view message, const char* param) {
  return {400, errorBody(message, "invalid_request_error", param, nullptr)};
}

std::string serverErrorBody() {
  return errorBody("The server had an error while processing your request.", "server_error", nullptr,
                   nullptr);
}

ErrorReply insufficientQuota() {
  return {429, errorBody("You exceeded your current quota, please check your plan and billing details. For "
                         "more information on this error, read the docs: "
                         "https://platform.openai.com/docs/guides/error-codes/api-errors.",
                         "insufficient_quota", nullptr, "insufficient_quota")};
}

ErrorReply contextLengthExceeded() {
  return {400, errorBody("This model's maximum context length is 128000 tokens. However, your messages "
                         "resulted in 130000 tokens. Please reduce the length of the messages.",
                         "invalid_request_error", "messages", "context_length_exceeded")};
}

ErrorReply errorForStatus(int status, std::string_view model, int retryAfter) {
  switch (status) {
    case 400:
      return invalidRequest("Invalid request (fake_upstream injected status 400).", nullptr);
    case 401:
      return invalidApiKey();
    case 403:
      return {403, errorBody("You are not allowed to sample from this model", "invalid_request_error",
                             nullptr, nullptr)};
    case 404:
      return {404, errorBody("The model `" + std::string(model) +
                                 "` does not exist or you do not have access to it.",
                             "invalid_request_error", nullptr, "model_not_found")};
    case 429:
      return {429, errorBody("Rate limit reached for " + std::string(model) +
                                 " in organization org-fake on requests per min (RPM): Limit 3, Used 3, "
                                 "Requested 1. Please try again in " +
                                 std::to_string(retryAfter) +
                                 "s. Visit https://platform.openai.com/account/rate-limits to learn more.",
                             "requests", nullptr, "rate_limit_exceeded")};
    // OpenAI's edge (Cloudflare) answers 502 and 504 with a numeric code:
    // a gateway must not assume `code` is always a string or null.
    case 502:
      return {502, R"({"error":{"message":"Bad gateway.","type":"cf_bad_gateway","param":null,"code":502}})"};
    case 503:
      return {503, errorBody("The engine is currently overloaded, please try again later.", "server_error",
                             nullptr, nullptr)};
    case 504:
      return {
          504,
          R"({"error":{"message":"Gateway timeout.","type":"cf_gateway_timeout","param":null,"code":504}})"};
    default:
      if (status >= 500) return {status, serverErrorBody()};
      return {status,
              errorBody("Request failed (fake_upstream injected status " + std::to_string(status) + ").",
                        "invalid_request_error", nullptr, nullptr)};
  }
}

ErrorReply invalidUrl(std::string_view method, std::string_view path) {
  return {404, errorBody("Invalid URL (" + std::string(method) + " " + std::string(path) + ")",
                         "invalid_request_error", nullptr, nullptr)};
}

}  // namespace fake_upstream::openai
