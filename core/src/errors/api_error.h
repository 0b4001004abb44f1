// The spec's error contract (section 7): one type for every non-2xx answer and
// the envelope it is written as.
#pragma once

#include <string>
#include <string_view>

namespace modelgw::errors {

struct ApiError {
  int status = 500;
  std::string code = "internal_error";
  std::string message;
  std::string param;       // empty means null
  int retry_after_s = -1;  // sets Retry-After when >= 0
  bool retryable = false;  // not on the wire: whether the same call may succeed later (spec 7.4)

  // The `type` the spec pairs with this status.
  std::string_view type() const;
};

// {"error":{"type","code","message","param","request_id"}}
std::string error_envelope(const ApiError& error, std::string_view request_id);

// Shorthands for the errors the host itself raises.
ApiError bad_request(std::string code, std::string message, std::string param = {});
ApiError not_found(std::string code, std::string message, std::string param = {});
ApiError internal_error(std::string message =
                            "internal gateway error; retry, and report the request_id if it "
                            "persists");

// Client input quoted in an error message: at most `max` bytes of `text`, each
// byte outside printable ASCII, and '"' and '\\', written as \xNN, then
// "... (N bytes)" when `text` was cut. The result is at most 4 * max + 32
// bytes, so a 4 MB model or parameter name cannot make a 4 MB answer.
std::string input_excerpt(std::string_view text, std::size_t max = 64);

}  // namespace modelgw::errors
