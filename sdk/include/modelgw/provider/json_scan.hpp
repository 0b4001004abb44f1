// A validating JSON scanner for large vendor bodies that a plugin relays in
// part as text (embedding vectors: thousands of numbers it must pass on as
// the vendor wrote them). It checks the RFC 8259 grammar (strings' escapes
// and UTF-8 included) and hands out views of member and element values,
// without building a DOM or converting a number: every byte is looked at a
// small, fixed number of times and nothing is allocated.
// Header-only C++17; needs only the C++ standard library (and, where the
// compiler targets SSE2, its SSE2 intrinsics: every x86-64 GCC and Clang).
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mgw::provider::json_scan {

// Nesting accepted before a text is refused (the recursion below is bounded by it).
inline constexpr std::size_t kMaxScanDepth = 128;

inline bool is_ws(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

inline std::size_t skip_ws(std::string_view s, std::size_t i) noexcept {
  while (i < s.size() && is_ws(s[i])) ++i;
  return i;
}

namespace detail {

inline bool is_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}

inline bool is_hex(char c) noexcept {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The end of the UTF-8 sequence whose lead byte is at `i` (>= 0x80), or npos
// when it is not a well-formed sequence (overlong forms, surrogates and
// code points past U+10FFFF refused, as RFC 3629 says).
inline std::size_t utf8_end(std::string_view s, std::size_t i) noexcept {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = b(i);
  std::size_t len = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    len = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    len = 3;
    if (lead == 0xE0) lo = 0xA0;
    if (lead == 0xED) hi = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    len = 4;
    if (lead == 0xF0) lo = 0x90;
    if (lead == 0xF4) hi = 0x8F;
  } else {
    return std::string_view::npos;
  }
  if (i + len > s.size()) return std::string_view::npos;
  if (b(i + 1) < lo || b(i + 1) > hi) return std::string_view::npos;
  for (std::size_t k = 2; k < len; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return std::string_view::npos;
  }
  return i + len;
}

// Whether one of the eight bytes of `w` is not a plain string byte: a quote,
// a backslash, a control byte (< 0x20) or part of a multi-byte sequence
// (>= 0x80). Exact for "any", whatever the byte order: the classic
// "has a zero byte" / "has a byte less than n" word tests.
inline bool word_has_special(std::uint64_t w) noexcept {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHighs = 0x8080808080808080ULL;
  const auto has_zero = [](std::uint64_t x) { return (x - kOnes) & ~x & kHighs; };
  return (has_zero(w ^ (kOnes * '"')) | has_zero(w ^ (kOnes * '\\')) | ((w - kOnes * 0x20) & ~w & kHighs) |
          (w & kHighs)) != 0;
}

}  // namespace detail

// The first position from `i` inside a string's text that may not be a
// plain byte (see word_has_special), sixteen or eight bytes at a time: most of a long
// string (a message's content) is plain ASCII, and a byte loop after it
// then only looks at what is not. May stop early (fewer than eight bytes
// left); never skips a quote, backslash, control or non-ASCII byte.
inline std::size_t plain_run_end(std::string_view s, std::size_t i) noexcept {
#if defined(__SSE2__)
  // Sixteen at a time where SSE2 is there (every x86-64): a signed "less
  // than 0x20" is true for control bytes and for every byte >= 0x80.
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20);
  while (i + 16 <= s.size()) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                     _mm_cmplt_epi8(v, space));
    const int mask = _mm_movemask_epi8(hit);
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    i += 16;
  }
#endif
  while (i + 8 <= s.size()) {
    std::uint64_t w = 0;
    std::memcpy(&w, s.data() + i, sizeof w);
    if (detail::word_has_special(w)) break;
    i += 8;
  }
  return i;
}

// The position after the string whose opening quote is at `i`, or npos when
// it is not a valid JSON string.
inline std::size_t string_end(std::string_view s, std::size_t i) noexcept {
  if (i >= s.size() || s[i] != '"') return std::string_view::npos;
  ++i;
  while (i < s.size()) {
    i = plain_run_end(s, i);
    if (i >= s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"') return i + 1;
    if (c < 0x20) return std::string_view::npos;
    if (c == '\\') {
      if (i + 1 >= s.size()) return std::string_view::npos;
      const char e = s[i + 1];
      if (e == 'u') {
        if (i + 6 > s.size()) return std::string_view::npos;
        for (std::size_t k = i + 2; k < i + 6; ++k) {
          if (!detail::is_hex(s[k])) return std::string_view::npos;
        }
        i += 6;
      } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
                 e == 't') {
        i += 2;
      } else {
        return std::string_view::npos;
      }
    } else if (c >= 0x80) {
      i = detail::utf8_end(s, i);
      if (i == std::string_view::npos) return i;
    } else {
      ++i;
    }
  }
  return std::string_view::npos;
}

// The position after the number that starts at `i`, or npos when none does.
inline std::size_t number_end(std::string_view s, std::size_t i) noexcept {
  using detail::is_digit;
  const std::size_t n = s.size();
  if (i < n && s[i] == '-') ++i;
  if (i >= n || !is_digit(s[i])) return std::string_view::npos;
  if (s[i] == '0') {
    ++i;
  } else {
    while (i < n && is_digit(s[i])) ++i;
  }
  if (i < n && s[i] == '.') {
    ++i;
    if (i >= n || !is_digit(s[i])) return std::string_view::npos;
    while (i < n && is_digit(s[i])) ++i;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= n || !is_digit(s[i])) return std::string_view::npos;
    while (i < n && is_digit(s[i])) ++i;
  }
  return i;
}

// The position after the value that starts at `i` (no whitespace before it),
// or npos when it is not valid JSON or nests deeper than `depth_left`.
inline std::size_t value_end(std::string_view s, std::size_t i,
                             std::size_t depth_left = kMaxScanDepth) noexcept {
  if (i >= s.size()) return std::string_view::npos;
  const char c = s[i];
  if (c == '"') return string_end(s, i);
  if (c == '-' || detail::is_digit(c)) return number_end(s, i);
  // A literal is known by its first byte: no word is tried on a container.
  const std::string_view word = c == 't'   ? std::string_view("true")
                                : c == 'f' ? std::string_view("false")
                                : c == 'n' ? std::string_view("null")
                                           : std::string_view();
  if (!word.empty()) return s.substr(i, word.size()) == word ? i + word.size() : std::string_view::npos;
  if (c != '{' && c != '[') return std::string_view::npos;
  if (depth_left == 0) return std::string_view::npos;
  const bool object = c == '{';
  const char close = object ? '}' : ']';
  i = skip_ws(s, i + 1);
  if (i < s.size() && s[i] == close) return i + 1;
  // Bounded: each turn consumes at least one value.
  while (true) {
    if (object) {
      i = string_end(s, i);
      if (i == std::string_view::npos) return i;
      i = skip_ws(s, i);
      if (i >= s.size() || s[i] != ':') return std::string_view::npos;
      i = skip_ws(s, i + 1);
    }
    i = value_end(s, i, depth_left - 1);
    if (i == std::string_view::npos) return i;
    i = skip_ws(s, i);
    if (i >= s.size()) return std::string_view::npos;
    if (s[i] == close) return i + 1;
    if (s[i] != ',') return std::string_view::npos;
    i = skip_ws(s, i + 1);
  }
}

// True when `text` is exactly one JSON value, whitespace around it aside.
inline bool is_document(std::string_view text, std::size_t max_depth = kMaxScanDepth) noexcept {
  const std::size_t end = value_end(text, skip_ws(text, 0), max_depth);
  return end != std::string_view::npos && skip_ws(text, end) == text.size();
}

// Calls visit(name, value) for each member of the object `object` (a view of
// exactly one object value, e.g. a member's value from an earlier visit):
// `name` is the key's text between its quotes (escapes as written), `value`
// the member's value text. False when `object` is not a valid object, or as
// soon as `visit` returns false.
template <typename Visit>
bool for_each_member(std::string_view object, Visit&& visit, std::size_t max_depth = kMaxScanDepth) {
  std::size_t i = skip_ws(object, 0);
  if (i >= object.size() || object[i] != '{' || max_depth == 0) return false;
  i = skip_ws(object, i + 1);
  if (i < object.size() && object[i] == '}') return skip_ws(object, i + 1) == object.size();
  while (true) {
    const std::size_t key_end = string_end(object, i);
    if (key_end == std::string_view::npos) return false;
    const std::string_view name = object.substr(i + 1, key_end - i - 2);
    i = skip_ws(object, key_end);
    if (i >= object.size() || object[i] != ':') return false;
    i = skip_ws(object, i + 1);
    const std::size_t end = value_end(object, i, max_depth - 1);
    if (end == std::string_view::npos) return false;
    if (!visit(name, object.substr(i, end - i))) return false;
    i = skip_ws(object, end);
    if (i >= object.size()) return false;
    if (object[i] == '}') return skip_ws(object, i + 1) == object.size();
    if (object[i] != ',') return false;
    i = skip_ws(object, i + 1);
  }
}

// Calls visit(value) for each element of the array `array`, as for_each_member.
template <typename Visit>
bool for_each_element(std::string_view array, Visit&& visit, std::size_t max_depth = kMaxScanDepth) {
  std::size_t i = skip_ws(array, 0);
  if (i >= array.size() || array[i] != '[' || max_depth == 0) return false;
  i = skip_ws(array, i + 1);
  if (i < array.size() && array[i] == ']') return skip_ws(array, i + 1) == array.size();
  while (true) {
    const std::size_t end = value_end(array, i, max_depth - 1);
    if (end == std::string_view::npos) return false;
    if (!visit(array.substr(i, end - i))) return false;
    i = skip_ws(array, end);
    if (i >= array.size()) return false;
    if (array[i] == ']') return skip_ws(array, i + 1) == array.size();
    if (array[i] != ',') return false;
    i = skip_ws(array, i + 1);
  }
}

// Calls visit(number_text) for each element of `array`, which must be an
// array of numbers only (the shape of an embedding vector). False when it is
// not, or as soon as `visit` returns false. One pass, no recursion.
template <typename Visit>
bool for_each_number(std::string_view array, Visit&& visit) {
  std::size_t i = skip_ws(array, 0);
  if (i >= array.size() || array[i] != '[') return false;
  i = skip_ws(array, i + 1);
  if (i < array.size() && array[i] == ']') return skip_ws(array, i + 1) == array.size();
  while (true) {
    const std::size_t end = number_end(array, i);
    if (end == std::string_view::npos) return false;
    if (!visit(array.substr(i, end - i))) return false;
    i = skip_ws(array, end);
    if (i >= array.size()) return false;
    if (array[i] == ']') return skip_ws(array, i + 1) == array.size();
    if (array[i] != ',') return false;
    i = skip_ws(array, i + 1);
  }
}

// True when the number `number` (valid JSON number text) is finite as a
// double. JSON's grammar has no limit, but 1e400 is no number a reader can
// hold (nlohmann::json refuses it, JavaScript reads Infinity), so a relayed
// vector must not carry one; one too small for a double reads as 0 and is
// kept. Only a number with an exponent or 300 digits is converted.
inline bool number_is_finite(std::string_view number) noexcept {
  const std::size_t e = number.find_first_of("eE");
  if (e == std::string_view::npos && number.size() < 300) return true;
  double d = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), d);
  if (ec == std::errc()) return true;
  if (ec != std::errc::result_out_of_range) return false;
  // Out of range either way: overflow when the decimal exponent of the first
  // significant digit is positive, underflow otherwise.
  const std::string_view mantissa = number.substr(0, e);
  const std::size_t point = std::min(mantissa.find('.'), mantissa.size());
  const std::size_t first = mantissa.find_first_of("123456789");
  if (first == std::string_view::npos) return true;  // zero
  long long exponent =
      first < point ? static_cast<long long>(point - first - 1) : -static_cast<long long>(first - point);
  if (e != std::string_view::npos) {
    std::string_view digits = number.substr(e + 1);
    const bool negative = !digits.empty() && digits.front() == '-';
    if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
    long long value = 0;
    for (const char c : digits) value = value < 100000000 ? value * 10 + (c - '0') : value;
    exponent += negative ? -value : value;
  }
  return exponent < 0;
}

// True when `value` (one value's text) is an array holding only numbers, each
// finite as a double.
inline bool is_number_array(std::string_view value) {
  return for_each_number(value, [](std::string_view n) { return number_is_finite(n); });
}

// The text of a JSON string value without its quotes, when it holds no
// escape (the common case, compared without decoding); nullopt otherwise.
inline std::optional<std::string_view> plain_string(std::string_view value) noexcept {
  if (value.size() < 2 || value.front() != '"' || value.back() != '"') return std::nullopt;
  const std::string_view inner = value.substr(1, value.size() - 2);
  if (inner.find('\\') != std::string_view::npos) return std::nullopt;
  return inner;
}

// A non-negative integer value's number (a token count), or nullopt when the
// text is not one or it overflows int64.
inline std::optional<int64_t> count_value(std::string_view value) noexcept {
  if (value.empty() || value.size() > 18) return std::nullopt;
  int64_t n = 0;
  for (const char c : value) {
    if (!detail::is_digit(c)) return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

}  // namespace mgw::provider::json_scan
