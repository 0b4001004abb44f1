// ASCII case-insensitive comparison, for header names, directives and other
// protocol tokens (never for text a person wrote: no locale, no Unicode).
#pragma once

#include <algorithm>
#include <cctype>
#include <string_view>

namespace modelgw::util {

inline bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

inline bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

}  // namespace modelgw::util
