#include "base64.h"

#include <array>
#include <cstdint>

namespace modelgw::tokenizer::tools {
namespace {

constexpr int kInvalid = -1;

constexpr std::array<int, 256> make_table() {
  std::array<int, 256> t{};
  for (auto& v : t) v = kInvalid;
  constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (std::size_t i = 0; i < alphabet.size(); ++i)
    t[static_cast<unsigned char>(alphabet[i])] = static_cast<int>(i);
  return t;
}

constexpr std::array<int, 256> kTable = make_table();

}  // namespace

std::optional<std::string> decode_base64(std::string_view text) {
  if (text.empty() || text.size() % 4 != 0) return std::nullopt;
  std::size_t padding = 0;
  if (text.back() == '=') padding = text[text.size() - 2] == '=' ? 2 : 1;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    std::uint32_t quad = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const char c = text[i + j];
      int v = kTable[static_cast<unsigned char>(c)];
      if (c == '=' && last && j >= 4 - padding) v = 0;
      if (v == kInvalid) return std::nullopt;
      quad = (quad << 6) | static_cast<std::uint32_t>(v);
    }
    out.push_back(static_cast<char>((quad >> 16) & 0xFF));
    if (!last || padding < 2) out.push_back(static_cast<char>((quad >> 8) & 0xFF));
    if (!last || padding < 1) out.push_back(static_cast<char>(quad & 0xFF));
  }
  return out;
}

}  // namespace modelgw::tokenizer::tools
