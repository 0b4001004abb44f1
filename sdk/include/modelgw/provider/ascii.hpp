// ASCII text helpers for provider plugins: header names, vendor keywords and
// date words are ASCII, so case folding never needs a locale.
// Header-only C++17; needs only the C++ standard library.
#pragma once

#include <cstddef>
#include <string_view>

namespace mgw::provider {

inline constexpr char ascii_lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

inline constexpr bool is_ascii_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}

inline constexpr bool is_ascii_alpha(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// ASCII case-insensitive equality.
inline constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) {
      return false;
    }
  }
  return true;
}

// True when `s` starts with `prefix`, ignoring ASCII case.
inline constexpr bool istarts_with(std::string_view s, std::string_view prefix) noexcept {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

// True when `haystack` contains `needle`, ignoring ASCII case.
inline constexpr bool icontains(std::string_view haystack, std::string_view needle) noexcept {
  if (needle.size() > haystack.size()) {
    return false;
  }
  for (std::size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    if (iequals(haystack.substr(i, needle.size()), needle)) {
      return true;
    }
  }
  return false;
}

// `s` without leading and trailing spaces and tabs (HTTP's optional whitespace).
inline constexpr std::string_view trim_ows(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace mgw::provider
