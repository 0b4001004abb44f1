// Keys and hashes of byte strings for the rank table. Short strings (the
// common case in byte-pair merging) become one 64-bit word, compared and
// hashed without a loop or a call to memcmp.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace modelgw::tokenizer::hashing {

inline std::uint64_t load64(const char* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline std::uint64_t load32(const char* p) noexcept {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The splitmix64 finalizer: every input bit affects every output bit.
inline std::uint64_t mix(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// The bytes of a string of 1..8 bytes as a little-endian word, zero-padded.
// Reads only inside the string: two overlapping loads, never one past the end.
inline std::uint64_t short_key(std::string_view s) noexcept {
  const char* p = s.data();
  const std::size_t n = s.size();
  if (n >= 4) {
    const std::uint64_t lo = load32(p);
    const std::uint64_t hi = load32(p + n - 4);
    return lo | (hi << (8 * (n - 4)));  // the overlap ORs identical bytes
  }
  std::uint64_t v = static_cast<unsigned char>(p[0]);
  if (n > 1) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[1])) << 8;
  if (n > 2) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[2])) << 16;
  return v;
}

// The length is mixed in so that "a" and "a\0" hash differently.
inline std::uint64_t hash_short(std::uint64_t key, std::size_t n) noexcept {
  return mix(key ^ (n * 0x9e3779b97f4a7c15ULL));
}

// Strings longer than 8 bytes: whole words, then the last 8 bytes (overlapping).
inline std::uint64_t hash_long(std::string_view s) noexcept {
  const char* p = s.data();
  std::size_t n = s.size();
  std::uint64_t h = 0x9e3779b97f4a7c15ULL * (n + 1);
  const char* end = p + n;
  while (n > 8) {
    h = mix(h ^ load64(p));
    p += 8;
    n -= 8;
  }
  return mix(h ^ load64(end - 8));
}

}  // namespace modelgw::tokenizer::hashing
