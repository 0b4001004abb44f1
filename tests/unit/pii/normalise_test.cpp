// The detector's normalised view (pii/normalise.h): what each class of
// look-alike character becomes, that ASCII and text with nothing to change
// give no view at all, how spans map back to the original bytes, and that
// invalid UTF-8 and adversarial runs of marks are read on without harm.
#include "pii/normalise.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace modelgw::pii {
namespace {

// The view's text, or the input itself when normalise() says nothing changes.
std::string viewed(std::string_view text) {
  const std::optional<NormalisedText> v = normalise(text);
  return v ? std::string(v->text()) : std::string(text);
}

// The original bytes under view span [offset, offset + length).
std::string original_of(std::string_view text, std::size_t offset, std::size_t length) {
  const std::optional<NormalisedText> v = normalise(text);
  if (!v) return "(no view)";
  const OriginalRange r = v->original(offset, length);
  return std::string(text.substr(r.offset, r.length));
}

TEST(PiiNormalise, PureAsciiHasNoView) {
  EXPECT_FALSE(normalise(""));
  EXPECT_FALSE(normalise("card 4111 1111 1111 1111, mail a@b.io"));
  EXPECT_FALSE(normalise(std::string(1000, 'x') + "\x7f"));
}

TEST(PiiNormalise, TextWithNothingToChangeHasNoView) {
  EXPECT_FALSE(normalise("Grüße aus Köln, café, naïve, Ελληνικά, 日本語, emoji 😀"));
  EXPECT_FALSE(normalise("é"));  // precomposed: already NFKC
}

TEST(PiiNormalise, NfkcTurnsCompatibilityFormsIntoAscii) {
  EXPECT_EQ(viewed("\xEF\xBC\x94\xEF\xBC\x91\xEF\xBC\x92"), "412");  // full-width digits
  EXPECT_EQ(viewed("a\xEF\xBC\xA0"
                   "b.io"),
            "a@b.io");                                                                         // full-width @
  EXPECT_EQ(viewed("\xEF\xBD\x8A\xEF\xBD\x81\xEF\xBC\x8E\xEF\xBC\xA4\xEF\xBC\xA5"), "ja.DE");  // letters, '.'
  EXPECT_EQ(viewed("\xEF\xAC\x81le"), "file");                                                 // ﬁ ligature
  EXPECT_EQ(viewed("e\xCC\x81t\xC3\xA9"), "\xC3\xA9t\xC3\xA9");  // e + U+0301 composes
  EXPECT_EQ(viewed("\xE2\x91\xA0"), "1");                        // circled digit one
}

TEST(PiiNormalise, DecimalDigitsOfEveryScriptBecomeAsciiDigits) {
  EXPECT_EQ(viewed("\xD9\xA0\xD9\xA1\xD9\xA2\xD9\xA9"), "0129");  // Arabic-Indic
  EXPECT_EQ(viewed("\xDB\xB0\xDB\xB4\xDB\xB9"), "049");           // Extended Arabic-Indic
  EXPECT_EQ(viewed("\xE0\xA5\xA6\xE0\xA5\xAA"), "04");            // Devanagari
  EXPECT_EQ(viewed("\xE0\xA7\xAB"), "5");                         // Bengali
  EXPECT_EQ(viewed("\xE0\xB9\x97"), "7");                         // Thai
  EXPECT_EQ(viewed("\xF0\x9D\x9F\x8E"), "0");                     // mathematical bold digit zero (NFKC)
}

TEST(PiiNormalise, FormatCharactersAreDropped) {
  for (const char* cf : {"\xE2\x80\x8B",         // zero-width space
                         "\xE2\x80\x8C",         // zero-width non-joiner
                         "\xE2\x80\x8D",         // zero-width joiner
                         "\xC2\xAD",             // soft hyphen
                         "\xE2\x81\xA0",         // word joiner
                         "\xEF\xBB\xBF",         // BOM
                         "\xE2\x80\x8E",         // left-to-right mark
                         "\xE2\x80\xAE",         // right-to-left override
                         "\xE2\x81\xA4",         // invisible plus
                         "\xEF\xB8\x8F",         // variation selector 16 (default ignorable)
                         "\xF3\xA0\x80\x81"}) {  // language tag
    EXPECT_EQ(viewed(std::string("12") + cf + "34" + cf), "1234") << cf;
  }
}

TEST(PiiNormalise, SpacesOfEveryKindBecomeASpace) {
  for (const char* zs : {"\xC2\xA0", "\xE2\x80\xAF", "\xE2\x80\x80", "\xE2\x80\x83", "\xE2\x80\x87",
                         "\xE2\x80\x89", "\xE2\x80\x8A", "\xE3\x80\x80", "\xE1\x9A\x80", "\xE2\x81\x9F"}) {
    EXPECT_EQ(viewed(std::string("12") + zs + "34"), "12 34") << zs;
  }
}

TEST(PiiNormalise, DashesOfEveryKindBecomeAHyphenMinus) {
  for (const char* pd : {"\xE2\x80\x93",     // en dash
                         "\xE2\x80\x94",     // em dash
                         "\xE2\x88\x92",     // minus sign
                         "\xE2\x80\x91",     // non-breaking hyphen
                         "\xE2\x80\x92",     // figure dash
                         "\xE2\x80\x90",     // hyphen
                         "\xE2\x80\x95",     // horizontal bar
                         "\xEF\xBC\x8D",     // full-width hyphen-minus
                         "\xEF\xB9\xA3"}) {  // small hyphen-minus
    EXPECT_EQ(viewed(std::string("123") + pd + "45"), "123-45") << pd;
  }
}

TEST(PiiNormalise, MarksDrawnOnADigitGoWithIt) {
  EXPECT_EQ(viewed("4\xCC\xB2"
                   "1\xCC\xB2"
                   "1\xCC\xB2"),
            "411");  // combining low line
  EXPECT_EQ(viewed("4\xEF\xB8\x8F\xE2\x83\xA3"
                   "1\xEF\xB8\x8F\xE2\x83\xA3"),
            "41");  // keycaps
  std::string many_marks = "4";
  for (int i = 0; i < 100; ++i) many_marks += "\xCC\xB2";
  EXPECT_EQ(viewed(many_marks + "1"), "41") << "however many marks, beyond one normalisation segment";
  EXPECT_EQ(viewed("a\xCC\xB2"), "a\xCC\xB2") << "marks on letters stay";
}

TEST(PiiNormalise, SpansMapBackToTheOriginalBytes) {
  // "x " + full-width 4 + ZWSP + "11" + NBSP + "é" + "!"
  const std::string text =
      "x \xEF\xBC\x94\xE2\x80\x8B"
      "11\xC2\xA0\xC3\xA9!";
  ASSERT_EQ(viewed(text), "x 411 \xC3\xA9!");
  EXPECT_EQ(original_of(text, 0, 2), "x ");
  EXPECT_EQ(original_of(text, 2, 1), "\xEF\xBC\x94");
  // A span across a dropped character includes it.
  EXPECT_EQ(original_of(text, 2, 3),
            "\xEF\xBC\x94\xE2\x80\x8B"
            "11");
  EXPECT_EQ(original_of(text, 3, 1), "1");
  EXPECT_EQ(original_of(text, 5, 1), "\xC2\xA0");
  EXPECT_EQ(original_of(text, 2, 4),
            "\xEF\xBC\x94\xE2\x80\x8B"
            "11\xC2\xA0");
  // A span that cuts a copied character is widened to the whole character.
  EXPECT_EQ(original_of(text, 6, 1), "\xC3\xA9");
  EXPECT_EQ(original_of(text, 7, 1), "\xC3\xA9");
  EXPECT_EQ(original_of(text, 8, 1), "!");
  EXPECT_EQ(original_of(text, 0, 9), text);
}

TEST(PiiNormalise, SpansOfARewrittenCharacterCoverAllOfIt) {
  // ﬁ becomes two bytes; either alone maps to the whole ligature.
  const std::string text = "a\xEF\xAC\x81z";
  ASSERT_EQ(viewed(text), "afiz");
  EXPECT_EQ(original_of(text, 1, 1), "\xEF\xAC\x81");
  EXPECT_EQ(original_of(text, 2, 1), "\xEF\xAC\x81");
  EXPECT_EQ(original_of(text, 2, 2), "\xEF\xAC\x81z");
}

TEST(PiiNormalise, InvalidUtf8StaysAsItIsAndTheRestIsReadOn) {
  const std::string text =
      "\xff\xEF\xBC\x94 \xC3 \xE2\x80 \xED\xA0\x80 \xF4\x90\x80\x80 \xC0\xAF \xEF\xBC\x91";
  EXPECT_EQ(viewed(text),
            "\xff"
            "4 \xC3 \xE2\x80 \xED\xA0\x80 \xF4\x90\x80\x80 \xC0\xAF 1");
  EXPECT_EQ(original_of(text, 1, 1), "\xEF\xBC\x94");
  const std::string v = viewed(text);
  EXPECT_EQ(original_of(text, v.size() - 1, 1), "\xEF\xBC\x91");
  // Truncated sequences at the very end, alone or after a rewrite.
  EXPECT_FALSE(normalise("\xEF\xBC"));
  EXPECT_EQ(viewed("\xEF\xBC\x94\xEF\xBC"), "4\xEF\xBC");
  EXPECT_EQ(viewed("\xE2\x80\x8B\xF0"), "\xF0");
}

TEST(PiiNormalise, EverythingDroppedLeavesAnEmptyView) {
  const std::optional<NormalisedText> v = normalise("\xE2\x80\x8B\xC2\xAD\xEF\xBB\xBF");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->text(), "");
}

TEST(PiiNormalise, ALongRunOfCombiningMarksIsReadInBoundedSegments) {
  // Alternating combining classes (230, 220): sorted in one segment this
  // would be quadratic. Cut into bounded segments it stays linear.
  std::string text = "x";  // no precomposed x with either mark: nothing composes
  for (int i = 0; i < 100000; ++i) text += "\xCC\x81\xCC\x96";
  const auto t0 = std::chrono::steady_clock::now();
  const std::optional<NormalisedText> v = normalise(text);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  ASSERT_TRUE(v);  // the marks are reordered (220 before 230) within each segment
  EXPECT_EQ(v->text().size(), text.size());
  EXPECT_EQ(v->original(0, v->text().size()), (OriginalRange{0, text.size()}));
}

}  // namespace
}  // namespace modelgw::pii
