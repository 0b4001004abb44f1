#include "pattern.h"

#include <stdexcept>

namespace modelgw::tokenizer {
namespace {

// Unicode White_Space: U+0009..U+000D, U+0085 and the separators (Zs, Zl, Zp).
constexpr std::string_view kWhiteSpaceItems = R"(\x{09}-\x{0D}\x{85}\p{Z})";

}  // namespace

std::string to_pcre2_pattern(std::string_view in) {
  std::string out;
  out.reserve(in.size() + 64);
  bool in_class = false;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '\\' && i + 1 < in.size()) {
      const char e = in[++i];
      if (e == 's') {
        out += in_class ? std::string(kWhiteSpaceItems) : "[" + std::string(kWhiteSpaceItems) + "]";
      } else if (e == 'S') {
        if (in_class) throw std::invalid_argument("\\S inside a character class is not supported");
        out += "[^" + std::string(kWhiteSpaceItems) + "]";
      } else if (e == 'Q') {
        throw std::invalid_argument("\\Q...\\E quoting is not supported");
      } else {
        out += c;
        out += e;
      }
      continue;
    }
    out += c;
    if (!in_class && c == '[') {
      in_class = true;
      // A ']' right after '[' or '[^' is a literal member, not the end.
      if (i + 1 < in.size() && in[i + 1] == '^') out += in[++i];
      if (i + 1 < in.size() && in[i + 1] == ']') out += in[++i];
    } else if (in_class && c == ']') {
      in_class = false;
    }
  }
  return out;
}

}  // namespace modelgw::tokenizer
