#include "embedding_vectors.h"

#include <charconv>
#include <cstdint>
#include <cstring>

namespace fake_upstream {
namespace {

uint64_t fnv1a(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The k-th value's text: "[-]0.dddddddd".
void appendValue(std::string& out, uint64_t seed, int k) {
  const uint64_t r = splitmix64(seed + static_cast<uint64_t>(k));
  const auto magnitude = static_cast<int64_t>(r % 100000000ULL);
  if ((r >> 63) != 0) out += '-';
  char digits[9];
  int64_t rest = magnitude;
  for (int i = 7; i >= 0; --i) {
    digits[i] = static_cast<char>('0' + rest % 10);
    rest /= 10;
  }
  digits[8] = '\0';
  out += "0.";
  out.append(digits, 8);
}

void appendBase64(std::string& out, const std::string& bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i = 0;
  const auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[k])); };
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (b(i) << 16) | (b(i + 1) << 8) | b(i + 2);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
  }
  if (const size_t rest = bytes.size() - i; rest > 0) {
    const uint32_t v = (b(i) << 16) | (rest == 2 ? b(i + 1) << 8 : 0);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
}

}  // namespace

void appendVectorFloats(std::string& out, std::string_view input, int dimensions) {
  const uint64_t seed = fnv1a(input);
  out.reserve(out.size() + static_cast<size_t>(dimensions) * 12 + 2);
  out += '[';
  for (int k = 0; k < dimensions; ++k) {
    if (k > 0) out += ',';
    appendValue(out, seed, k);
  }
  out += ']';
}

void appendVectorBase64(std::string& out, std::string_view input, int dimensions) {
  const uint64_t seed = fnv1a(input);
  std::string bytes;
  bytes.reserve(static_cast<size_t>(dimensions) * 4);
  std::string text;
  for (int k = 0; k < dimensions; ++k) {
    text.clear();
    appendValue(text, seed, k);
    float f = 0;
    std::from_chars(text.data(), text.data() + text.size(), f);
    uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    for (int s = 0; s < 32; s += 8) bytes += static_cast<char>((bits >> s) & 0xFF);
  }
  out += '"';
  appendBase64(out, bytes);
  out += '"';
}

}  // namespace fake_upstream
