#include "auth/api_key.h"

#include "util/sha256_hex.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <array>
#include <stdexcept>

namespace modelgw::auth {
namespace {
constexpr char kBase62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
constexpr std::size_t kSecretChars = 40;
}  // namespace

std::string mint_api_key() {
  std::string key(kKeyPrefix);
  // Rejection sampling keeps every character uniform: bytes >= 248 (4 * 62) are dropped.
  while (key.size() < kKeyPrefix.size() + kSecretChars) {
    std::array<unsigned char, 64> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
      throw std::runtime_error("the system's random number generator failed");
    }
    for (unsigned char b : bytes) {
      if (b >= 248) continue;
      key.push_back(kBase62[b % 62]);
      if (key.size() == kKeyPrefix.size() + kSecretChars) break;
    }
  }
  return key;
}

std::string hash_api_key(std::string_view key) {
  return util::sha256_hex(key);
}

std::string display_prefix(std::string_view key) {
  return std::string(key.substr(0, kKeyPrefix.size() + 4));
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace modelgw::auth
