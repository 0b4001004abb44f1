// Lowercase hex SHA-256, for digests that are stored and compared as text
// (API key hashes, idempotency request digests).
#pragma once

#include <string>
#include <string_view>

namespace modelgw::util {

std::string sha256_hex(std::string_view bytes);

}  // namespace modelgw::util
