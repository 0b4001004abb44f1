#include "gemini_errors.h"

#include <nlohmann/json.hpp>

namespace fake_upstream::gemini {
namespace {

// Errors are rare, so they are built with nlohmann's ordered_json, which
// keeps Google's key order (code, message, status, details).
using ojson = nlohmann::ordered_json;

std::string errorBody(int code, std::string_view message, std::string_view status, ojson details = nullptr) {
  ojson error = {{"code", code}, {"message", message}, {"status", status}};
  if (!details.is_null()) error["details"] = std::move(details);
  // The model comes from a percent-decoded path and may not be UTF-8.
  return ojson{{"error", std::move(error)}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

constexpr std::string_view kRateLimitsUrl = "https://ai.google.dev/gemini-api/docs/rate-limits";

std::string quotaMessage(std::string_view model, std::string_view limit, int retryDelaySeconds) {
  std::string message =
      "You exceeded your current quota, please check your plan and billing details. For more information on "
      "this error, head to: " +
      std::string(kRateLimitsUrl) +
      ".\n* Quota exceeded for metric: "
      "generativelanguage.googleapis.com/generate_content_free_tier_requests, "
      "limit: " +
      std::string(limit) + ", model: " + std::string(model);
  if (retryDelaySeconds >= 0) message += "\nPlease retry in " + std::to_string(retryDelaySeconds) + "s.";
  return message;
}

ojson quotaDetails(std::string_view model, std::string_view quotaId, std::string_view limit) {
  return ojson::array(
      {{{"@type", "type.googleapis.com/google.rpc.QuotaFailure"},
        {"violations",
         {{{"quotaMetric", "generativelanguage.googleapis.com/generate_content_free_tier_requests"},
           {"quotaId", quotaId},
           {"quotaDimensions", {{"location", "global"}, {"model", model}}},
           {"quotaValue", limit}}}}},
       {{"@type", "type.googleapis.com/google.rpc.Help"},
        {"links", {{{"description", "Learn more about Gemini API quotas"}, {"url", kRateLimitsUrl}}}}}});
}

}  // namespace

ErrorReply apiKeyInvalid() {
  return {400, errorBody(400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT",
                         ojson::array({{{"@type", "type.googleapis.com/google.rpc.ErrorInfo"},
                                        {"reason", "API_KEY_INVALID"},
                                        {"domain", "googleapis.com"}}}))};
}

ErrorReply invalidArgument(std::string_view message) {
  return {400, errorBody(400, message, "INVALID_ARGUMENT")};
}

ErrorReply inputTooLong() {
  return invalidArgument(
      "The input token count (1048577) exceeds the maximum number of tokens allowed (1048576).");
}

std::string internalErrorBody() {
  return errorBody(500, "Internal error encountered.", "INTERNAL");
}

ErrorReply dailyQuotaExceeded(std::string_view model) {
  return {429, errorBody(429, quotaMessage(model, "250", -1), "RESOURCE_EXHAUSTED",
                         quotaDetails(model, "GenerateRequestsPerDayPerProjectPerModel-FreeTier", "250"))};
}

ErrorReply errorForStatus(int status, std::string_view model, std::string_view method,
                          int retryDelaySeconds) {
  switch (status) {
    case 400:
      return invalidArgument("Request contains an invalid argument.");
    case 401:
      return {401, errorBody(401,
                             "Request had invalid authentication credentials. Expected OAuth 2 access token, "
                             "login cookie or other valid authentication credential. See "
                             "https://developers.google.com/identity/sign-in/web/devconsole-project.",
                             "UNAUTHENTICATED")};
    case 403:
      return {403, errorBody(403, "The caller does not have permission", "PERMISSION_DENIED")};
    case 404:
      return {404, errorBody(404,
                             "models/" + std::string(model) +
                                 " is not found for API version v1beta, or is not "
                                 "supported for " +
                                 std::string(method) +
                                 ". Call ListModels to see the list of available models and their supported "
                                 "methods.",
                             "NOT_FOUND")};
    case 409:
      return {409, errorBody(409, "The operation was aborted.", "ABORTED")};
    case 429: {
      auto details = quotaDetails(model, "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "10");
      details.push_back({{"@type", "type.googleapis.com/google.rpc.RetryInfo"},
                         {"retryDelay", std::to_string(retryDelaySeconds) + "s"}});
      return {429, errorBody(429, quotaMessage(model, "10", retryDelaySeconds), "RESOURCE_EXHAUSTED",
                             std::move(details))};
    }
    case 499:
      return {499, errorBody(499, "The operation was cancelled.", "CANCELLED")};
    case 501:
      return {501,
              errorBody(501, "Operation is not implemented, or supported, or enabled.", "UNIMPLEMENTED")};
    case 503:
      return {503, errorBody(503, "The model is overloaded. Please try again later.", "UNAVAILABLE")};
    case 504:
      return {504, errorBody(504, "Deadline expired before operation could complete.", "DEADLINE_EXCEEDED")};
    default:
      if (status >= 500) {
        return {status, errorBody(status,
                                  "An internal error has occurred. Please retry or report in "
                                  "https://developers.generativeai.google/guide/troubleshooting",
                                  "INTERNAL")};
      }
      return {
          status,
          errorBody(status, "Request failed (fake_upstream injected status " + std::to_string(status) + ").",
                    "FAILED_PRECONDITION")};
  }
}

}  // namespace fake_upstream::gemini
