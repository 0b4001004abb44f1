// Anthropic's own description of a failure, read from its JSON body.
#pragma once

#include <modelgw/provider/json.hpp>

#include <optional>
#include <string_view>

namespace mgw::anthropic {

// Views into the parsed document: valid as long as it is. Raw vendor text:
// pass it through vendor_text() (modelgw/provider/secret_mask.hpp) before it goes anywhere.
struct VendorError {
  std::string_view type;     // e.g. "overloaded_error"; empty when not given
  std::string_view message;  // empty when not given
};

// Reads Anthropic's {"type":"error","error":{"type","message"}} (also the
// `error` event of a stream) and the shapes a proxy in front of it may send
// instead: {"error":{"message","type"}}, {"error":"text"}, {"message":"text"}.
// nullopt when `doc` holds none of these.
std::optional<VendorError> read_vendor_error(const provider::Json& doc);

// True for error types a retry may cure (overloaded_error, api_error,
// rate_limit_error, timeout_error) and for unknown or missing types; false for
// those that describe the request or the account (invalid_request_error,
// authentication_error, permission_error, not_found_error, request_too_large,
// billing_error).
bool is_transient(std::string_view error_type) noexcept;

}  // namespace mgw::anthropic
