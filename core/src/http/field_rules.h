// What RFC 9110/9112 allow in a request line and a header field, for what the
// gateway writes to an upstream: a name or method is a token, and nothing
// written may hold a byte that ends a line or a control character, which would
// let a value smuggle another header or request. Cheap: one pass, no
// allocation (it runs on every upstream request).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace modelgw::http {

namespace detail {
constexpr std::array<bool, 256> make_tchar_table() {
  std::array<bool, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = true;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = true;
  for (char c : std::string_view("!#$%&'*+-.^_`|~")) t[static_cast<unsigned char>(c)] = true;
  return t;
}
inline constexpr std::array<bool, 256> kTchar = make_tchar_table();
}  // namespace detail

// RFC 9110 5.6.2: token = 1*tchar.
inline bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!detail::kTchar[static_cast<unsigned char>(c)]) return false;
  }
  return true;
}

// RFC 9110 5.6.3: a list member or parameter without the optional
// whitespace (SP, HTAB) around it.
inline std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// RFC 9110 5.5: a field value is visible characters, obs-text, SP and HTAB.
// CR, LF, NUL and every other control character are refused.
inline bool is_field_value(std::string_view s) {
  std::size_t i = 0;
#if defined(__SSE2__)
  // Sixteen bytes at a time where SSE2 is there (every x86-64): a byte is
  // below 0x20 when the unsigned max of it and 0x1f is 0x1f.
  const __m128i below = _mm_set1_epi8(0x1f);
  const __m128i tab = _mm_set1_epi8('\t');
  const __m128i del = _mm_set1_epi8(0x7f);
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    const __m128i control =
        _mm_andnot_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(_mm_max_epu8(v, below), below));
    if (_mm_movemask_epi8(_mm_or_si128(control, _mm_cmpeq_epi8(v, del))) != 0) return false;
  }
#endif
  for (; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  return true;
}

// A request-target's path and query as written on the wire (RFC 9112 3.2):
// visible ASCII only; a space, a control character or a non-ASCII byte would
// have to be percent-encoded.
inline bool is_request_target_text(std::string_view s) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c >= 0x7f) return false;
  }
  return true;
}

}  // namespace modelgw::http
