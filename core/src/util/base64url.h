// Base64url without padding (RFC 7515 section 2), the encoding of every JWS
// segment and of every JWK number.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace modelgw::util {

// Strict: only A-Z a-z 0-9 - _, no '=' padding, no whitespace, and the unused
// low bits of the last character must be zero, so every byte string has
// exactly one accepted encoding. Nullopt when `text` breaks any of these.
std::optional<std::string> base64url_decode(std::string_view text);

std::string base64url_encode(std::string_view bytes);

}  // namespace modelgw::util
