// What RFC 9110/9112 allow in a request line and a header field, for what the
// gateway writes to an upstream: a name or method is a token, and nothing
// written may hold a byte that ends a line or a control character, which would
// let a value smuggle another header or request. Cheap: one pass, no
// allocation (it runs on every upstream request).
#pragma once

#include <array>
#include <string_view>

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
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
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
