#include "errors/anthropic_error.h"

#include <nlohmann/json.hpp>

namespace modelgw::errors {

std::string_view anthropic_error_type(int status) {
  switch (status) {
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 503:
    case 529:
      return "overloaded_error";
    case 504:
      return "timeout_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

std::string anthropic_error_envelope(const ApiError& error, std::string_view request_id) {
  nlohmann::json body = {
      {"type", "error"},
      {"error",
       {{"type", anthropic_error_type(error.status)},
        {"message", error.message},
        {"code", error.code},
        {"param", error.param.empty() ? nlohmann::json(nullptr) : nlohmann::json(error.param)},
        {"request_id", request_id}}},
      {"request_id", request_id}};
  // Replace invalid UTF-8 rather than throw: a message may quote client input.
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace modelgw::errors
