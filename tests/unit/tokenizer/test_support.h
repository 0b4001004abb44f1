// Helpers shared by the tokenizer tests.
#pragma once

#include <modelgw/tokenizer.h>

#include <cctype>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bpe_encoding.h"

namespace modelgw::tokenizer::testing {

inline const BpeEncoding& bpe(std::string_view name) {
  const auto* enc = dynamic_cast<const BpeEncoding*>(find_encoding(name));
  if (enc == nullptr) throw std::runtime_error("no BPE encoding " + std::string(name));
  return *enc;
}

// A gtest parameter name from free text: letters and digits kept, the rest '_'.
inline std::string test_name(std::string_view text) {
  std::string out;
  for (char c : text) out += (std::isalnum(static_cast<unsigned char>(c)) != 0) ? c : '_';
  return out;
}

inline std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

}  // namespace modelgw::tokenizer::testing
