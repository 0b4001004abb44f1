#include "errors/api_error.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace modelgw::errors {

std::string_view ApiError::type() const {
  switch (status) {
    case 401:
    case 403:
      return "authentication_error";
    case 429:
      return "rate_limit_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

std::string error_envelope(const ApiError& error, std::string_view request_id) {
  nlohmann::json body = {
      {"error",
       {{"type", error.type()},
        {"code", error.code},
        {"message", error.message},
        {"param", error.param.empty() ? nlohmann::json(nullptr) : nlohmann::json(error.param)},
        {"request_id", request_id}}}};
  // Replace invalid UTF-8 rather than throw: a message may quote client input.
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

ApiError bad_request(std::string code, std::string message, std::string param) {
  return ApiError{400, std::move(code), std::move(message), std::move(param)};
}

ApiError not_found(std::string code, std::string message, std::string param) {
  return ApiError{404, std::move(code), std::move(message), std::move(param)};
}

ApiError internal_error(std::string message) {
  return ApiError{500, "internal_error", std::move(message), {}};
}

std::string input_excerpt(std::string_view text, std::size_t max) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::size_t shown = std::min(text.size(), max);
  std::string out;
  out.reserve(shown + 32);
  // Whole bytes are escaped, so a cut never splits an escape.
  for (const char ch : text.substr(0, shown)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out.push_back(ch);
    } else {
      out.append("\\x").push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    }
  }
  if (shown < text.size()) out.append("... (").append(std::to_string(text.size())).append(" bytes)");
  return out;
}

}  // namespace modelgw::errors
