// The text as the PII detector reads it. A model reads "４１１１", "٤١١١",
// "4111<zero-width space>1111" and "123–45–6789" (en dashes) as the ASCII
// values, so the detector's ASCII patterns must see them that way: the view is
// NFKC (full-width and other compatibility forms become ASCII), with decimal
// digits of every script as ASCII digits, format and other default-ignorable
// characters (U+200B, U+00AD, U+2060, U+FEFF, ...) and combining marks on a
// digit dropped, every space separator (U+00A0, U+202F, U+2000-U+200A, U+3000,
// ...) a space, and every dash (U+2010-U+2015, U+2212, full-width '-', ...) '-'.
// Spans of the view map back to the original bytes, so a finding masks what
// the client wrote. Invalid UTF-8 stays as it is, byte for byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::pii {

// A stretch of the original text, in bytes.
struct OriginalRange {
  std::size_t offset;
  std::size_t length;
  bool operator==(const OriginalRange&) const = default;
};

class NormalisedText {
 public:
  std::string_view text() const { return text_; }

  // The original bytes that text()[offset, offset + length) (length > 0, in
  // range) was made from: from the first byte of the character the span starts
  // in to the last byte of the one it ends in. Characters dropped inside the
  // span are included, and no UTF-8 sequence is cut.
  OriginalRange original(std::size_t offset, std::size_t length) const;

 private:
  friend std::optional<NormalisedText> normalise(std::string_view text);

  // A stretch of text_ starting at `out`, made from source_[src, src_end):
  // copied byte for byte (`copied`: the same length), or rewritten (then every
  // byte of it maps to the whole source stretch).
  struct Piece {
    std::uint32_t out;
    std::uint32_t src;
    std::uint32_t src_end;
    bool copied;
  };

  explicit NormalisedText(std::string_view source) : source_(source) {}
  const Piece& piece_at(std::size_t out) const;

  std::string_view source_;  // the caller's text; it outlives this view
  std::string text_;
  std::vector<Piece> pieces_;  // by `out`; a dropped character has none
};

// The detector's view of `text`, or nothing when it would be `text` itself:
// always for pure ASCII (checked a word at a time, so ASCII text pays one
// quick pass and nothing else), and for most other text. Texts of 4 GiB or
// more are not supported. Thread-safe. Throws std::runtime_error when ICU's
// normalisation data cannot be loaded (the detector checks at start-up).
std::optional<NormalisedText> normalise(std::string_view text);

}  // namespace modelgw::pii
