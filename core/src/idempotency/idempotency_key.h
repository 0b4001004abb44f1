// The Idempotency-Key header of a chat request (spec 8) and the digest of the
// request it was sent with: the same key with another request is refused.
#pragma once

#include "errors/api_error.h"
#include "http/server_call.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace modelgw::idempotency {

inline constexpr std::size_t kMaxKeyBytes = 255;

// The key; std::monostate when none was sent; 400 invalid_parameter (param
// Idempotency-Key) when it is empty, longer than 255 bytes, holds anything
// but printable ASCII, or the header was sent more than once.
std::variant<std::monostate, std::string, errors::ApiError> read_key(const http::Request& request);

// Lowercase hex SHA-256 of the request as it asks for work: the body's JSON
// serialised canonically (members sorted, no insignificant whitespace, so a
// client that re-serialises its retry is not refused), the feature header,
// and the named prompt the body references (part of the body). The
// Authorization header is not part of it: keys are per tenant already.
std::string request_digest(const nlohmann::json& body, std::string_view feature);

}  // namespace modelgw::idempotency
