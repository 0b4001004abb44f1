#include "pii/normalise.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/stringpiece.h>
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <bitset>
#include <cstring>
#include <stdexcept>

namespace modelgw::pii {
namespace {

// A normalisation segment is a starter and the combining marks after it; ICU
// reorders the marks by combining class, quadratic in the worst case. A run of
// marks longer than this (Unicode's stream-safe format allows 30) is cut into
// segments of its own: no real text has one, and the view stays linear.
constexpr std::size_t kMaxSegmentCodePoints = 32;

constexpr UChar32 kDropped = -1;

bool ascii_digit(UChar32 c) {
  return c >= '0' && c <= '9';
}

// What the view holds for code point `c` of the NFKC form: a code point, or
// kDropped. `after_digit` says whether the last code point kept was an ASCII
// digit, so marks drawn on a digit ("4̲", the keycap "4⃣") go with it.
UChar32 fold(UChar32 c, bool& after_digit) {
  if (c < 0x80) {
    after_digit = ascii_digit(c);
    return c;
  }
  const auto type = static_cast<UCharCategory>(u_charType(c));
  if (type == U_FORMAT_CHAR || u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT)) return kDropped;
  if ((type == U_NON_SPACING_MARK || type == U_ENCLOSING_MARK) && after_digit) return kDropped;
  UChar32 out = c;
  if (type == U_DECIMAL_DIGIT_NUMBER) {
    const int32_t value = u_charDigitValue(c);
    if (value >= 0 && value <= 9) out = '0' + value;
  } else if (type == U_SPACE_SEPARATOR) {
    out = ' ';
  } else if (type == U_DASH_PUNCTUATION || c == 0x2212) {  // U+2212 MINUS SIGN is a math symbol
    out = '-';
  }
  after_digit = ascii_digit(out);
  return out;
}

// ICU's NFKC and, for the Basic Multilingual Plane, the two questions the
// loop asks of every code point, answered from bit tables built once (a few
// milliseconds at start-up) instead of ICU's property lookups (text in Greek
// or Japanese asks them for nearly every character).
class Unicode {
 public:
  Unicode() {
    UErrorCode status = U_ZERO_ERROR;
    nfkc_ = icu::Normalizer2::getNFKCInstance(status);
    if (U_FAILURE(status) || nfkc_ == nullptr) {
      throw std::runtime_error(std::string("ICU's NFKC data did not load: ") + u_errorName(status));
    }
    for (UChar32 c = 0; c < kBmp; ++c) {
      boundary_[static_cast<std::size_t>(c)] = nfkc_->hasBoundaryBefore(c);
      bool no_digit_before = false;
      bool digit_before = true;
      const bool yes = u_getIntPropertyValue(c, UCHAR_NFKC_QUICK_CHECK) == UNORM_YES;
      as_is_[static_cast<std::size_t>(c)] =
          yes && fold(c, no_digit_before) == c && fold(c, digit_before) == c;
    }
  }

  const icu::Normalizer2& nfkc() const { return *nfkc_; }

  // Whether `c` starts a normalisation segment (nothing before it composes
  // or reorders with it).
  bool boundary_before(UChar32 c) const {
    return c < kBmp ? boundary_[static_cast<std::size_t>(c)] : nfkc_->hasBoundaryBefore(c);
  }
  // Whether `c`, alone in its segment, is in the view as it is whatever came
  // before it (not only after a letter: marks are not, they go with a digit).
  bool as_is(UChar32 c) const {
    if (c < kBmp) return as_is_[static_cast<std::size_t>(c)];
    bool digit_before = true;
    return u_getIntPropertyValue(c, UCHAR_NFKC_QUICK_CHECK) == UNORM_YES && fold(c, digit_before) == c;
  }

 private:
  static constexpr UChar32 kBmp = 0x10000;
  const icu::Normalizer2* nfkc_ = nullptr;
  std::bitset<kBmp> boundary_;
  std::bitset<kBmp> as_is_;
};

const Unicode& unicode() {
  static const Unicode u;
  return u;
}

// Index of the first byte of `s` at or after `from` with the high bit set, or
// s.size(): a word at a time, which is all pure-ASCII text pays.
std::size_t next_non_ascii(std::string_view s, std::size_t from) {
  constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
  std::size_t i = from;
  // 32 bytes per test: the compiler keeps the four loads in registers (or
  // vectorises them), so this runs at about the speed of memory.
  for (; i + 32 <= s.size(); i += 32) {
    std::uint64_t w[4];
    std::memcpy(w, s.data() + i, sizeof w);
    if (((w[0] | w[1] | w[2] | w[3]) & kHighBits) != 0) break;
  }
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, s.data() + i, sizeof word);
    if ((word & kHighBits) != 0) break;
  }
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0x80) != 0) return i;
  }
  return s.size();
}

void append_code_point(std::string& out, UChar32 c) {
  std::uint8_t buf[U8_MAX_LENGTH];
  std::size_t n = 0;
  U8_APPEND_UNSAFE(buf, n, c);
  out.append(reinterpret_cast<const char*>(buf), n);
}

}  // namespace

const NormalisedText::Piece& NormalisedText::piece_at(std::size_t out) const {
  auto it = std::upper_bound(pieces_.begin(), pieces_.end(), out,
                             [](std::size_t o, const Piece& p) { return o < p.out; });
  return *std::prev(it);  // pieces_ starts at out 0 whenever text_ is not empty
}

OriginalRange NormalisedText::original(std::size_t offset, std::size_t length) const {
  const Piece& first = piece_at(offset);
  std::size_t begin = first.copied ? first.src + (offset - first.out) : first.src;
  const std::size_t last_byte = offset + length - 1;
  const Piece& last = piece_at(last_byte);
  std::size_t end = last.copied ? last.src + (last_byte + 1 - last.out) : last.src_end;
  // A span of the view that cuts a copied character cuts it in the original
  // too: widen it to whole characters (at most 3 bytes each way, for invalid
  // UTF-8 as much as for valid).
  const auto continuation = [&](std::size_t i) {
    return (static_cast<unsigned char>(source_[i]) & 0xC0) == 0x80;
  };
  for (int k = 0; k < 3 && begin > 0 && continuation(begin); ++k) --begin;
  for (int k = 0; k < 3 && end < source_.size() && continuation(end); ++k) ++end;
  return {begin, end - begin};
}

std::optional<NormalisedText> normalise(std::string_view text) {
  std::size_t pos = next_non_ascii(text, 0);
  if (pos == text.size()) return std::nullopt;

  const Unicode& uni = unicode();
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data());
  const std::size_t size = text.size();
  NormalisedText view(text);
  bool changed = false;
  std::size_t copied_from = 0;  // start of the source not yet in view.text_ (all copied as is)
  // Replaces source [begin, end) with `with` in the view.
  const auto rewrite = [&](std::size_t begin, std::size_t end, std::string_view with) {
    changed = true;
    if (copied_from < begin) {
      view.pieces_.push_back({static_cast<std::uint32_t>(view.text_.size()),
                              static_cast<std::uint32_t>(copied_from), static_cast<std::uint32_t>(begin),
                              true});
      view.text_.append(text.substr(copied_from, begin - copied_from));
    }
    if (!with.empty()) {
      view.pieces_.push_back({static_cast<std::uint32_t>(view.text_.size()),
                              static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end), false});
      view.text_.append(with);
    }
    copied_from = end;
  };

  // The ASCII byte before the first non-ASCII one may be the starter of its
  // segment ("e" + U+0301): start there.
  if (pos > 0) --pos;
  bool after_digit = false;
  std::string folded;
  std::string nfkc_out;
  while (pos < size) {
    if (bytes[pos] < 0x80 && (pos + 1 == size || bytes[pos + 1] < 0x80)) {
      // ASCII not followed by anything it could combine with: as it is, up to
      // the byte before the next non-ASCII one.
      std::size_t next = next_non_ascii(text, pos);
      if (next < size) next = std::max(next - 1, pos + 1);
      after_digit = ascii_digit(bytes[next - 1]);
      pos = next;
      continue;
    }
    const std::size_t begin = pos;
    UChar32 c;
    U8_NEXT(bytes, pos, size, c);
    if (c < 0) {
      // Not UTF-8: the bytes stay as they are (a separator for the patterns,
      // as any non-ASCII byte), and what follows is read on.
      after_digit = false;
      continue;
    }
    std::size_t count = 1;
    while (pos < size && count < kMaxSegmentCodePoints) {
      std::size_t next = pos;
      UChar32 d;
      U8_NEXT(bytes, next, size, d);
      if (d < 0 || uni.boundary_before(d)) break;
      pos = next;
      ++count;
    }
    const std::string_view segment = text.substr(begin, pos - begin);
    if (count == 1 && uni.as_is(c)) {
      after_digit = ascii_digit(c);  // of those as they are, only ASCII digits are digits
      continue;
    }
    nfkc_out.clear();
    icu::StringByteSink<std::string> sink(&nfkc_out);
    UErrorCode status = U_ZERO_ERROR;
    uni.nfkc().normalizeUTF8(0, icu::StringPiece(segment.data(), static_cast<int32_t>(segment.size())), sink,
                             nullptr, status);
    if (U_FAILURE(status)) nfkc_out.assign(segment);  // cannot happen for valid UTF-8; read it as it is
    folded.clear();
    const auto* n = reinterpret_cast<const std::uint8_t*>(nfkc_out.data());
    for (std::size_t i = 0; i < nfkc_out.size();) {
      UChar32 d;
      U8_NEXT(n, i, nfkc_out.size(), d);
      if (d < 0) continue;
      const UChar32 f = fold(d, after_digit);
      if (f != kDropped) append_code_point(folded, f);
    }
    if (folded != segment) rewrite(begin, pos, folded);
  }
  if (!changed) return std::nullopt;
  if (copied_from < size) {
    view.pieces_.push_back({static_cast<std::uint32_t>(view.text_.size()),
                            static_cast<std::uint32_t>(copied_from), static_cast<std::uint32_t>(size), true});
    view.text_.append(text.substr(copied_from));
  }
  return view;
}

}  // namespace modelgw::pii
