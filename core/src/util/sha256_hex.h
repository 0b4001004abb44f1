// SHA-256: as lowercase hex, for digests that are stored and compared as
// text (API key hashes, idempotency request digests); raw, over the
// concatenation of several parts, for digests kept in memory (pii/
// clean_text_cache.h). Throws std::runtime_error when OpenSSL fails.
#pragma once

#include <array>
#include <initializer_list>
#include <string>
#include <string_view>

namespace modelgw::util {

std::string sha256_hex(std::string_view bytes);

std::array<unsigned char, 32> sha256(std::initializer_list<std::string_view> parts);

}  // namespace modelgw::util
