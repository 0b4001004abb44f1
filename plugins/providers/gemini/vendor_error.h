// Gemini's own description of a failure, read from its JSON body.
#pragma once

#include <modelgw/provider/json.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

namespace mgw::gemini {

using provider::Json;

// Fields of a google.rpc.Status error object. Views into the parsed document:
// valid as long as it is. Raw vendor text: mask it
// (modelgw/provider/secret_mask.hpp) before passing it on.
struct VendorError {
  std::string_view message;
  std::string_view status;        // canonical code name, e.g. "INVALID_ARGUMENT"
  const Json* details = nullptr;  // the "details" array, or nullptr
};

// Reads {"error": {"code", "message", "status", "details"}}, also wrapped in
// a top-level array ([{"error": {…}}], which Google front ends send too) and
// the bare {"error": "text"} some proxies write. nullopt when `doc` holds
// none of these.
std::optional<VendorError> read_vendor_error(const Json& doc);

// True when the error says the API key itself is bad: a google.rpc.ErrorInfo
// detail whose reason starts with API_KEY_ (API_KEY_INVALID, …), or a message
// such as "API key not valid. Please pass a valid API key." Gemini answers a
// bad key with 400 INVALID_ARGUMENT, not 401.
bool is_api_key_error(const VendorError& e);

// The google.rpc.RetryInfo detail's retryDelay ("22s") in milliseconds.
std::optional<int64_t> retry_delay_ms(const VendorError& e);

}  // namespace mgw::gemini
