// ASCII case-insensitive comparison, for header names, directives and other
// protocol tokens (never for text a person wrote: no locale, no Unicode).
#pragma once

#include <algorithm>
#include <string_view>

namespace modelgw::util {

// A-Z to a-z, every other byte as it is: inline, where std::tolower is a
// call into the C library's locale tables for every byte of every header
// name compared.
constexpr char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

constexpr bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

constexpr bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

}  // namespace modelgw::util
