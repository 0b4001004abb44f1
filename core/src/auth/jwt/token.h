// A compact JWS (RFC 7515 section 7.1) taken apart: three base64url segments,
// the first two JSON objects. Nothing here checks a signature or a claim.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

namespace modelgw::auth::jwt {

struct Token {
  nlohmann::json header;           // a JSON object
  nlohmann::json claims;           // a JSON object
  std::string_view signing_input;  // "<header>.<claims>" exactly as sent: what the signature covers
  std::string signature;           // raw bytes
};

// What is wrong with a token that is not a well-formed JWS, e.g. "it has 2
// segments; a JWT has 3". Never quotes the token.
struct Malformed {
  std::string reason;
};

// `compact` must outlive the Token (signing_input points into it).
// Refuses tokens longer than `max_bytes` before decoding anything.
std::variant<Token, Malformed> parse_token(std::string_view compact, std::size_t max_bytes);

}  // namespace modelgw::auth::jwt
