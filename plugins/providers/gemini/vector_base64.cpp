#include "vector_base64.h"

#include <modelgw/provider/json_scan.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <system_error>

namespace mgw::gemini {

namespace scan = mgw::provider::json_scan;

namespace {

// One JSON number's text as the nearest float32. from_chars reads JSON's
// number grammar (a subset of its own) without the locale.
std::optional<float> to_float32(std::string_view text) {
  float f = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), f);
  if (ec == std::errc() && end == text.data() + text.size()) return f;
  if (ec != std::errc::result_out_of_range) return std::nullopt;
  // Past float's range (either way): a double says which side, then saturate.
  double d = 0;
  const auto [dend, dec] = std::from_chars(text.data(), text.data() + text.size(), d);
  const bool negative = !text.empty() && text.front() == '-';
  if (dec == std::errc() && std::fabs(d) <= static_cast<double>(std::numeric_limits<float>::max())) {
    return static_cast<float>(d);  // a float subnormal or zero
  }
  if (dec == std::errc() && dend == text.data() + text.size()) {
    return negative ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  }
  // Even past double's range: huge exponents are infinities, tiny ones zero.
  const auto e = text.find_first_of("eE");
  const bool tiny = e != std::string_view::npos && e + 1 < text.size() && text[e + 1] == '-';
  if (tiny) return negative ? -0.0f : 0.0f;
  return negative ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  const auto b = [&](std::size_t k) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k]));
  };
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = (b(i) << 16) | (b(i + 1) << 8) | b(i + 2);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    const std::uint32_t v = (b(i) << 16) | (rest == 2 ? b(i + 1) << 8 : 0);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> float32_base64_json(std::string_view values) {
  std::string raw;
  raw.reserve(values.size() / 2);
  bool ok = true;
  const bool array = scan::for_each_number(values, [&](std::string_view number) {
    const auto f = to_float32(number);
    if (!f) {
      ok = false;
      return false;
    }
    std::uint32_t bits = 0;
    std::memcpy(&bits, &*f, sizeof bits);
    // Little-endian whatever the machine's order.
    for (int k = 0; k < 4; ++k) raw += static_cast<char>((bits >> (8 * k)) & 0xFF);
    return true;
  });
  if (!array || !ok) return std::nullopt;
  return '"' + base64_encode(raw) + '"';
}

}  // namespace mgw::gemini
