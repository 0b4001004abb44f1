// Opaque API keys: minting, hashing, and the prefix shown in listings. Only
// the SHA-256 hash of a key is ever stored; the key is printed once.
#pragma once

#include <string>
#include <string_view>

namespace modelgw::auth {

inline constexpr std::string_view kKeyPrefix = "sk-mgw-";

// "sk-mgw-" + 40 base62 characters from OpenSSL's CSPRNG (about 238 bits).
std::string mint_api_key();

// Lowercase hex SHA-256 of the key.
std::string hash_api_key(std::string_view key);

// The first characters of a key, enough to tell keys apart, too few to use.
std::string display_prefix(std::string_view key);

// Constant-time equality of two equal-length strings (false when lengths differ).
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace modelgw::auth
