// estimate_tokens: a tokenizer-free count for vendors whose tokenizer is not
// public. It aims just below what o200k_base (the most token-efficient public
// vocabulary, 200k entries) would count, script by script: vendor tokenizers
// with smaller or English-centric vocabularies need as many tokens or more,
// so the estimate errs low. Low is the safe side for the context-window
// check: an undercount lets the vendor reject a request itself, an
// overcount would refuse a request the vendor would have served.
// README.md has the measurements behind the weights.
#include "modelgw/tokenizer.h"

namespace modelgw::tokenizer {
namespace {

// Weights in 1/100 token per character, measured against o200k_base on
// ordinary text (README.md) and set a little below it.
constexpr std::size_t kUnitsPerToken = 100;
constexpr std::size_t kLetter = 17;          // English words: ~5.5 letters per token
constexpr std::size_t kWhitespaceRun = 17;   // a run of any length: spaces merge into tokens
constexpr std::size_t kDigit = 30;           // digits go in groups of at most 3
constexpr std::size_t kPunctuation = 40;     // code and JSON punctuation is often a token of its own
constexpr std::size_t kTwoByte = 17;         // Cyrillic, Greek, Arabic, Hebrew, accents: ~5 per token
constexpr std::size_t kIdeograph = 50;       // CJK ideographs and kana: ~1.5 per token
constexpr std::size_t kHangul = 45;          // Korean syllables: ~2 per token
constexpr std::size_t kOtherThreeByte = 28;  // Indic, Thai, symbols: ~3 per token
constexpr std::size_t kFourByte = 100;       // emoji and rare ideographs: a token or more each

bool ascii_space(unsigned char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

// CJK punctuation, kana, ideographs (U+3000-U+9FFF), compatibility
// ideographs (U+F900-U+FAFF) and full-width forms (U+FF00-U+FFEF).
bool ideograph(char32_t cp) {
  return (cp >= 0x3000 && cp <= 0x9FFF) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF00 && cp <= 0xFFEF);
}
bool hangul(char32_t cp) {
  return cp >= 0xAC00 && cp <= 0xD7AF;
}

std::size_t ascii_weight(unsigned char c) {
  // An apostrophe is part of a word ("don't" is one o200k token).
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '\'') return kLetter;
  if (c >= '0' && c <= '9') return kDigit;
  return kPunctuation;
}

}  // namespace

std::size_t estimate_tokens(std::string_view utf8) {
  std::size_t units = 0;
  bool in_space = false;
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(utf8[i]); };
  for (std::size_t i = 0; i < utf8.size(); ++i) {
    const unsigned char c = byte(i);
    if (ascii_space(c)) {
      if (!in_space) units += kWhitespaceRun;
      in_space = true;
      continue;
    }
    in_space = false;
    // Characters are weighed at their lead byte; continuation bytes weigh
    // nothing (so stray ones in invalid UTF-8 add nothing either).
    if (c < 0x80) {
      units += ascii_weight(c);
    } else if (c >= 0xC0 && c < 0xE0) {
      units += kTwoByte;
    } else if (c >= 0xE0 && c < 0xF0) {
      char32_t cp = c & 0x0F;
      for (std::size_t k = 1; k <= 2 && i + k < utf8.size(); ++k) cp = (cp << 6) | (byte(i + k) & 0x3F);
      units += ideograph(cp) ? kIdeograph : hangul(cp) ? kHangul : kOtherThreeByte;
    } else if (c >= 0xF0) {
      units += kFourByte;
    }
  }
  // Rounded down: erring low is the point.
  return units / kUnitsPerToken;
}

}  // namespace modelgw::tokenizer
