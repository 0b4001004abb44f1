// The detector end to end: each category found with its exact span in real
// sentences, the decoys its validators exist for left alone, overlaps resolved
// by precedence, and adversarial inputs scanned in linear time.
#include "pii/detector.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace modelgw::pii {
namespace {

const Detector& detector() {
  static const Detector d;  // compiled once: as in the gateway
  return d;
}

struct Seen {
  std::string category;
  std::string value;
  bool operator==(const Seen&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Seen& s) {
  return os << s.category << ":" << s.value;
}

std::vector<Seen> scan(std::string_view text) {
  std::vector<Finding> out;
  detector().scan(text, out);
  std::vector<Seen> seen;
  for (const auto& f : out)
    seen.push_back({std::string(name(f.category)), std::string(text.substr(f.offset, f.length))});
  return seen;
}

using V = std::vector<Seen>;

TEST(PiiDetector, FindsEveryCategoryWithItsExactSpan) {
  EXPECT_EQ(scan("Write to jane.doe+news@mail.example.co.uk today."),
            (V{{"email", "jane.doe+news@mail.example.co.uk"}}));
  EXPECT_EQ(scan("Call +44 20 7946 0958 or (415) 555-0134."),
            (V{{"phone", "+44 20 7946 0958"}, {"phone", "(415) 555-0134"}}));
  EXPECT_EQ(scan("Mein Festnetz: 030 1234567, mobil 06 12 34 56 78"),
            (V{{"phone", "030 1234567"}, {"phone", "06 12 34 56 78"}}));
  EXPECT_EQ(scan("card 4111 1111 1111 1111, exp 12/27"), (V{{"payment_card", "4111 1111 1111 1111"}}));
  EXPECT_EQ(scan("Amex 378282246310005."), (V{{"payment_card", "378282246310005"}}));
  EXPECT_EQ(scan("My SSN is 123-45-6789."), (V{{"ssn", "123-45-6789"}}));
  EXPECT_EQ(scan("social security number: 123456789"), (V{{"ssn", "123456789"}}));
  EXPECT_EQ(scan("IBAN DE89 3704 0044 0532 0130 00 please"), (V{{"iban", "DE89 3704 0044 0532 0130 00"}}));
  EXPECT_EQ(scan("pay GB82WEST12345698765432 now"), (V{{"iban", "GB82WEST12345698765432"}}));
  EXPECT_EQ(scan("from 192.168.10.7 and 2001:db8:85a3::8a2e:370:7334."),
            (V{{"ip_address", "192.168.10.7"}, {"ip_address", "2001:db8:85a3::8a2e:370:7334"}}));
  EXPECT_EQ(scan("key AKIAIOSFODNN7EXAMPLE leaked"), (V{{"secret", "AKIAIOSFODNN7EXAMPLE"}}));
  EXPECT_EQ(scan("born on 12 March 1984 in Ohio"), (V{{"date_of_birth", "12 March 1984"}}));
  EXPECT_EQ(scan("geboren am 12.03.1984"), (V{{"date_of_birth", "12.03.1984"}}));
  EXPECT_EQ(scan("DOB: 1984-03-12"), (V{{"date_of_birth", "1984-03-12"}}));
  EXPECT_EQ(scan("Geb.-Datum: 12.03.1984"), (V{{"date_of_birth", "12.03.1984"}}));
  EXPECT_EQ(scan("Nací el 12/03/1984 en Madrid"), (V{{"date_of_birth", "12/03/1984"}}));
  EXPECT_EQ(scan("fecha de nacimiento: 12 de marzo de 1984"), (V{{"date_of_birth", "12 de marzo de 1984"}}));
  EXPECT_EQ(scan("date de naissance : 3 février 1975"), (V{{"date_of_birth", "3 février 1975"}}));
}

TEST(PiiDetector, FindsSecretsOfEachKnownShape) {
  const std::string pem =
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
      "-----END RSA PRIVATE KEY-----";
  EXPECT_EQ(scan("here: " + pem + " thanks"), (V{{"secret", pem}}));
  const std::string jwt =
      "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dGhpc2lzbm90YXJlYWxzaWduYXR1cmU";
  EXPECT_EQ(scan("Authorization: Bearer " + jwt), (V{{"secret", jwt}}));
  EXPECT_EQ(scan("OPENAI_API_KEY=sk-proj-Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY"),
            (V{{"secret", "sk-proj-Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY"}}));
  EXPECT_EQ(scan("token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 ok"),
            (V{{"secret", "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"}}));
  EXPECT_EQ(scan("AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
            (V{{"secret", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"}}));
  EXPECT_EQ(scan("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
            (V{{"secret", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"}}));
}

TEST(PiiDetector, LeavesNearMissDecoysAlone) {
  EXPECT_EQ(scan("Order 1234 5678 9012 3456 shipped"), V{}) << "fails Luhn";
  EXPECT_EQ(scan("tracking 1234567812345670"), V{}) << "Luhn-valid but no issuer";
  EXPECT_EQ(scan("ids 000-12-3456, 666-12-3456, 912-34-5678, 123-00-4567, 123-45-0000"), V{});
  EXPECT_EQ(scan("IBAN DE88 3704 0044 0532 0130 00"), V{}) << "wrong check digits";
  EXPECT_EQ(scan("version 1.2.3.4.5 and 999.1.2.3"), V{});
  EXPECT_EQ(scan("use std::vector and a::b::c here"), V{});
  EXPECT_EQ(scan("meeting on 2024-03-12 at 10:30:00"), V{}) << "a date without a birth context";
  EXPECT_EQ(scan("born on 31/02/1990"), V{}) << "no such day";
  EXPECT_EQ(scan("pip install sk-learn-extensions-for-everyone"), V{});
  EXPECT_EQ(scan("mail root@localhost"), V{});
  EXPECT_EQ(scan("call 000-000-0000 or 111 111 1111"), V{});
}

TEST(PiiDetector, DigitsOfAMistypedIbanAreNeitherACardNorAPhone) {
  // A checksum-failing IBAN whose groups hold a Luhn-valid run with a card prefix.
  EXPECT_EQ(scan("IBAN CH42 5479 2026 6616 2253 7 non è valido"), V{});
  EXPECT_EQ(scan("NL55 INGB 0642 0169 25 klopt niet"), V{});
}

TEST(PiiDetector, DigitsAfterAPlusAreAPhoneNotACard) {
  EXPECT_EQ(scan("ruf an: +49 155 45973674"), (V{{"phone", "+49 155 45973674"}}));
  EXPECT_EQ(scan("+4111111111111111"), V{}) << "16 digits: too long for E.164, and not a card after a +";
}

TEST(PiiDetector, APrivateKeyHeaderWithoutABodyIsNotAKey) {
  EXPECT_EQ(scan("the file starts with -----BEGIN RSA PRIVATE KEY----- (redacted)"), V{});
  EXPECT_EQ(scan("-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----"), V{});
}

TEST(PiiDetector, AJsonEscapedPrivateKeyIsFoundWhole) {
  const std::string key =
      R"(-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASC
BKcwggSjAgEAAoIBAQC7
-----END PRIVATE KEY-----)";
  EXPECT_EQ(scan(R"({"type": "service_account", "private_key": ")" + key + R"(
", "client_email": "x"})"),
            (V{{"secret", key}}));
}

TEST(PiiDetector, PlaceholderTokensAreNotSecrets) {
  EXPECT_EQ(scan("export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), V{});
}

TEST(PiiDetector, AnIbanBeatsTheCardNumberInsideIt) {
  // The BBAN digits of this IBAN are themselves Luhn-valid with an Amex prefix.
  const auto found = scan("IBAN DE89 3704 0044 0532 0130 00");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].category, "iban");
}

TEST(PiiDetector, AnAddressWhoseLocalPartIsTheLastOnesDomainIsFound) {
  EXPECT_EQ(scan("a@b.c@d.com"), (V{{"email", "b.c@d.com"}}));
  EXPECT_EQ(scan("x@y.io,z@w.io"), (V{{"email", "x@y.io"}, {"email", "z@w.io"}}));
}

TEST(PiiDetector, NumbersAreFoundWhereverTheyStandInTheText) {
  // Digit patterns look only at runs of digits and " .-/()+": at the edges,
  // after letters, and after other small numbers, they must still be found.
  EXPECT_EQ(scan("4111111111111111"), (V{{"payment_card", "4111111111111111"}}));
  EXPECT_EQ(scan("x 2 (415) 555-0134."), (V{{"phone", "(415) 555-0134"}}));
  EXPECT_EQ(scan("ip:10.0.0.1"), (V{{"ip_address", "10.0.0.1"}}));
  EXPECT_EQ(scan("a1 b22 c333 123-45-6789"), (V{{"ssn", "123-45-6789"}}));
}

TEST(PiiDetector, FindsNationalPhoneFormatsInSentences) {
  EXPECT_EQ(scan("Handy: 0151 41398296, Büro 069/686114."),
            (V{{"phone", "0151 41398296"}, {"phone", "069/686114"}}));
  EXPECT_EQ(scan("Rückruf bitte unter 0179-90698900 oder (069) 686114"),
            (V{{"phone", "0179-90698900"}, {"phone", "(069) 686114"}}));
  EXPECT_EQ(scan("Tel. +49 (0)69 686114 / Fax 030 12345678"),
            (V{{"phone", "+49 (0)69 686114"}, {"phone", "030 12345678"}}));
  EXPECT_EQ(scan("Zentrale 0049 (0)69 686114, mobil 0049 151 41398296."),
            (V{{"phone", "0049 (0)69 686114"}, {"phone", "0049 151 41398296"}}));
  EXPECT_EQ(scan("Mi può chiamare al 347 123 4567 o al 347/1234567."),
            (V{{"phone", "347 123 4567"}, {"phone", "347/1234567"}}));
  EXPECT_EQ(scan("Llámenme al 612 345 678 o al 91 123 45 67."),
            (V{{"phone", "612 345 678"}, {"phone", "91 123 45 67"}}));
  EXPECT_EQ(scan("Bel me op 06-12345678 of 020 123 4567."),
            (V{{"phone", "06-12345678"}, {"phone", "020 123 4567"}}));
  EXPECT_EQ(scan("Call 07700 900123 or (020) 7946 0018."),
            (V{{"phone", "07700 900123"}, {"phone", "(020) 7946 0018"}}));
}

TEST(PiiDetector, NumbersShapedLikeNationalPhonesInOtherRolesAreNot) {
  EXPECT_EQ(scan("Bestellung ORD-0151-41398296 ist unterwegs"), V{});
  EXPECT_EQ(scan("Ticket #069686114 und #0151 41398296"), V{});
  EXPECT_EQ(scan("Kundennummer 069686114"), V{}) << "9 bare digits";
  EXPECT_EQ(scan("Termin am 06.12.2024 um 10:30, Version 0.15.141398"), V{});
  EXPECT_EQ(scan("ISBN 3-16-148410-0 und 978-3-16-148410-0"), V{});
  EXPECT_EQ(scan("Auftrag 3471234567 vom 12.03.2024"), V{}) << "an Italian mobile is never bare";
  EXPECT_EQ(scan("Kunden-Nr. 0012 3456 7890"), V{}) << "00 and a country code outside Europe";
  EXPECT_EQ(scan("tracking ID 3069 0036 2287 2527"), V{}) << "00 inside a longer run";
  EXPECT_EQ(scan("Tracking number: 8297 0150 4894 2941"), V{}) << "a trunk 0 inside a longer run";
  EXPECT_EQ(scan("from 91.131.24.36 and 99.221.27.55"),
            (V{{"ip_address", "91.131.24.36"}, {"ip_address", "99.221.27.55"}}));
  EXPECT_EQ(scan("Section 999.72.55.21 of the spec"), V{});
  EXPECT_EQ(scan("IBAN DE89 3704 0044 0532 0130 00"), (V{{"iban", "DE89 3704 0044 0532 0130 00"}}));
  EXPECT_EQ(scan("Karte 4111 1111 1111 1111"), (V{{"payment_card", "4111 1111 1111 1111"}}));
}

TEST(PiiDetector, AnEmailsDigitsAreNotAPhoneNumber) {
  EXPECT_EQ(scan("reach 4155550134@sms.example.com"), (V{{"email", "4155550134@sms.example.com"}}));
}

TEST(PiiDetector, ACardIsFoundInsideALongerGroupedRun) {
  EXPECT_EQ(scan("ref 12 4111 1111 1111 1111"), (V{{"payment_card", "4111 1111 1111 1111"}}));
  EXPECT_EQ(scan("4111 1111 1111 1111 2024"), (V{{"payment_card", "4111 1111 1111 1111"}}));
}

TEST(PiiDetector, FindingsAreSortedAndDoNotOverlap) {
  std::vector<Finding> out;
  const std::string text =
      "a@b.io 4111111111111111 123-45-6789 10.0.0.1 a@b.io DE89370400440532013000 +14155550134";
  detector().scan(text, out);
  ASSERT_EQ(out.size(), 7u);
  for (std::size_t i = 1; i < out.size(); ++i)
    EXPECT_GE(out[i].offset, out[i - 1].offset + out[i - 1].length);
}

TEST(PiiDetector, AppendsWithoutTouchingEarlierFindings) {
  std::vector<Finding> out{{Category::email, 1, 2}};
  detector().scan("x a@b.io", out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (Finding{Category::email, 1, 2}));
}

TEST(PiiDetector, BytesThatAreNotTextAreScannedNotFeared) {
  const std::string nul("mail\0a@b.io\0", 12);
  EXPECT_EQ(scan(nul), (V{{"email", "a@b.io"}}));
  EXPECT_EQ(scan("\xff\xfe a@b.io \xc3"), (V{{"email", "a@b.io"}}));
  EXPECT_EQ(scan(""), V{});
}

// Values disguised with Unicode look-alikes (issue 24, point 8) are read as a
// model reads them: the detector scans a normalised view (NFKC, digits of any
// script, format characters dropped, spaces and dashes of every kind) and
// reports the span of the ORIGINAL bytes, disguise included.
TEST(PiiDetector, FindsCardsInDigitsOfOtherScriptsWithTheirOriginalSpan) {
  const std::string full_width =
      "\xEF\xBC\x94\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91 \xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91 "
      "\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91 \xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91";
  EXPECT_EQ(scan("card " + full_width + ", exp 12/27"), (V{{"payment_card", full_width}}));
  const std::string arabic_indic =  // ٤١١١...
      "\xD9\xA4\xD9\xA1\xD9\xA1\xD9\xA1 \xD9\xA1\xD9\xA1\xD9\xA1\xD9\xA1 \xD9\xA1\xD9\xA1\xD9\xA1\xD9\xA1 "
      "\xD9\xA1\xD9\xA1\xD9\xA1\xD9\xA1";
  EXPECT_EQ(scan("رقم البطاقة " + arabic_indic), (V{{"payment_card", arabic_indic}}));
  const std::string extended_arabic_indic =
      "\xDB\xB4\xDB\xB1\xDB\xB1\xDB\xB1\xDB\xB1\xDB\xB1\xDB\xB1\xDB\xB1"
      "\xDB\xB1\xDB\xB1\xDB\xB1\xDB\xB1\xDB\xB1\xDB\xB1\xDB\xB1\xDB\xB1";
  EXPECT_EQ(scan("کارت " + extended_arabic_indic + "."), (V{{"payment_card", extended_arabic_indic}}));
  const std::string devanagari =
      "\xE0\xA5\xAA\xE0\xA5\xA7\xE0\xA5\xA7\xE0\xA5\xA7-\xE0\xA5\xA7\xE0\xA5\xA7"
      "\xE0\xA5\xA7\xE0\xA5\xA7-\xE0\xA5\xA7\xE0\xA5\xA7\xE0\xA5\xA7\xE0\xA5\xA7-"
      "\xE0\xA5\xA7\xE0\xA5\xA7\xE0\xA5\xA7\xE0\xA5\xA7";
  EXPECT_EQ(scan("card " + devanagari), (V{{"payment_card", devanagari}}));
  // Mixed scripts within one number are still the number.
  const std::string mixed =
      "4111 \xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91 1111 \xD9\xA1\xD9\xA1\xD9\xA1\xD9\xA1";
  EXPECT_EQ(scan(mixed), (V{{"payment_card", mixed}}));
}

TEST(PiiDetector, FindsCardsWhateverSeparatesTheirGroups) {
  for (const std::string& sep : {
           std::string("\xE2\x80\x8B"),      // zero-width space
           std::string("\xE2\x80\x8C"),      // zero-width non-joiner
           std::string("\xE2\x80\x8D"),      // zero-width joiner
           std::string("\xE2\x81\xA0"),      // word joiner
           std::string("\xEF\xBB\xBF"),      // BOM / zero-width no-break space
           std::string("\xC2\xAD"),          // soft hyphen
           std::string("\xC2\xA0"),          // no-break space
           std::string("\xE2\x80\xAF"),      // narrow no-break space
           std::string("\xE2\x80\x89"),      // thin space
           std::string("\xE2\x80\x83"),      // em space
           std::string("\xE3\x80\x80"),      // ideographic space
           std::string("\xE2\x80\x93"),      // en dash
           std::string("\xE2\x80\x94"),      // em dash
           std::string("\xE2\x88\x92"),      // minus sign
           std::string("\xE2\x80\x91"),      // non-breaking hyphen
           std::string("\xEF\xBC\x8D"),      // full-width hyphen-minus
           std::string("."),                 // dots
           std::string("  "),                // double spaces
           std::string("   "),               // triple spaces
           std::string(" \xE2\x80\x8B"),     // a space and a zero-width space
           std::string("\xC2\xA0\xC2\xA0"),  // two no-break spaces
       }) {
    const std::string card = "4111" + sep + "1111" + sep + "1111" + sep + "1111";
    EXPECT_EQ(scan("my card: " + card + " thanks"), (V{{"payment_card", card}})) << card;
  }
}

TEST(PiiDetector, FindsEmailsWithAFullWidthAtOrSoftHyphens) {
  const std::string full_width_at =
      "jane.roe\xEF\xBC\xA0"
      "example.org";
  EXPECT_EQ(scan("write to " + full_width_at + " today"), (V{{"email", full_width_at}}));
  const std::string soft =
      "jane.ro\xC2\xAD"
      "e@exam\xC2\xAD"
      "ple.org";
  EXPECT_EQ(scan("write to " + soft + " today"), (V{{"email", soft}}));
  const std::string full_width_all =  // ｊａｎｅ＠ｅｘａｍｐｌｅ．ｏｒｇ
      "\xEF\xBD\x8A\xEF\xBD\x81\xEF\xBD\x8E\xEF\xBD\x85\xEF\xBC\xA0\xEF\xBD\x85\xEF\xBD\x98\xEF\xBD\x81\xEF"
      "\xBD"
      "\x8D\xEF\xBD\x90\xEF\xBD\x8C\xEF\xBD\x85\xEF\xBC\x8E\xEF\xBD\x8F\xEF\xBD\x92\xEF\xBD\x87";
  EXPECT_EQ(scan("mail " + full_width_all), (V{{"email", full_width_all}}));
}

TEST(PiiDetector, FindsSsnsWithDashLookAlikes) {
  for (const std::string& dash :
       {std::string("\xE2\x80\x93"), std::string("\xE2\x80\x94"), std::string("\xE2\x88\x92"),
        std::string("\xE2\x80\x91"), std::string("\xE2\x80\x92"), std::string("\xEF\xBC\x8D")}) {
    const std::string ssn = "123" + dash + "45" + dash + "6789";
    EXPECT_EQ(scan("My SSN is " + ssn + "."), (V{{"ssn", ssn}})) << ssn;
  }
  const std::string zero_width_inside =
      "123-4\xE2\x80\x8B"
      "5-6789";
  EXPECT_EQ(scan("SSN " + zero_width_inside), (V{{"ssn", zero_width_inside}}));
}

TEST(PiiDetector, DisguisedDecoysStayDecoys) {
  // Luhn failures, no issuer, invalid SSN areas: normalising does not make them valid.
  EXPECT_EQ(scan("Order \xEF\xBC\x91\xEF\xBC\x92\xEF\xBC\x93\xEF\xBC\x94 5678 9012 3456 shipped"), V{});
  EXPECT_EQ(scan("Order 1234\xE2\x80\x8B"
                 "5678\xE2\x80\x8B"
                 "9012\xE2\x80\x8B"
                 "3456 shipped"),
            V{});
  EXPECT_EQ(scan("Order 4111.1111.1111.1112 shipped"), V{}) << "fails Luhn";
  EXPECT_EQ(scan("ids 666\xE2\x80\x93"
                 "12\xE2\x80\x93"
                 "3456 and 000\xE2\x80\x93"
                 "12\xE2\x80\x93"
                 "3456"),
            V{});
  EXPECT_EQ(scan("mail root\xEF\xBC\xA0localhost"), V{});
  // Prices and decimals are not a dotted card: a dot never mixes with other separators.
  EXPECT_EQ(scan("totals 41.11 11.11 11.11 11.11"), V{});
  EXPECT_EQ(scan("version 4111.1111 1111.1111"), V{});
  // Text that is not ASCII but has nothing to normalise keeps its findings as before.
  EXPECT_EQ(scan("Grüße, Jürgen: Karte 4111 1111 1111 1111, Mail a@b.io"),
            (V{{"payment_card", "4111 1111 1111 1111"}, {"email", "a@b.io"}}));
}

TEST(PiiDetector, ReportsOffsetsInTheOriginalTextAfterAnythingNormalised) {
  // Full-width letters, a dropped format character and combining marks before
  // the value: the finding's offset and length are the original's bytes.
  const std::string before =
      "ＡＢＣ\xE2\x80\x8B e\xCC\x81t\xC3\xA9 \xEF\xAC\x81 ";  // ABC, ZWSP, é as e+U+0301, ﬁ
  const std::string card =
      "4111\xC2\xA0"
      "1111\xC2\xA0"
      "1111\xC2\xA0"
      "1111";
  const std::string text = before + card +
                           " \xE2\x80\x8B"
                           "a@b.io";
  std::vector<Finding> out;
  detector().scan(text, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (Finding{Category::payment_card, static_cast<std::uint32_t>(before.size()),
                             static_cast<std::uint32_t>(card.size())}));
  EXPECT_EQ(out[1], (Finding{Category::email, static_cast<std::uint32_t>(text.size() - 6), 6}));
}

// NFKC reads "½" as "1⁄2": a card can end in its 1 and the next start at its
// 2. Both reach into the one original character; mode plugins are promised
// findings that do not overlap, so the second starts after it.
TEST(PiiDetector, FindingsThatShareARewrittenCharacterDoNotOverlap) {
  EXPECT_EQ(scan("4111 1111 1111 111\xC2\xBD"
                 "411 1111 1111 1112"),
            (V{{"payment_card", "4111 1111 1111 111\xC2\xBD"}, {"payment_card", "411 1111 1111 1112"}}));
}

TEST(PiiDetector, InvalidUtf8AroundADisguisedValueNeitherCrashesNorHidesIt) {
  const std::string card =
      "\xEF\xBC\x94\xEF\xBC\x91\xEF\xBC\x91\xEF\xBC\x91\xE2\x80\x8B"
      "1111 1111 1111";
  EXPECT_EQ(scan("\xff\xfe card " + card + " \xc3"), (V{{"payment_card", card}}));
  EXPECT_EQ(scan("\xE2\x80 card " + card + " \xed\xa0\x80 \xf4\x90\x80\x80 \xc0\xaf"),
            (V{{"payment_card", card}}));
  EXPECT_EQ(scan("\xEF\xBC"), V{});
  EXPECT_EQ(scan("\xE2\x80\x8B"), V{});
}

// Work must grow linearly with input: a 16x longer adversarial input may take
// at most ~40x longer (quadratic would be 256x). Times are CPU-noisy, so the
// bound is loose and each is the best of three.
double best_scan_seconds(const std::string& text) {
  double best = 1e9;
  for (int i = 0; i < 3; ++i) {
    std::vector<Finding> out;
    const auto t0 = std::chrono::steady_clock::now();
    detector().scan(text, out);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

std::string repeat(std::string_view unit, std::size_t bytes) {
  std::string s;
  s.reserve(bytes + unit.size());
  while (s.size() < bytes) s += unit;
  s.resize(bytes);
  return s;
}

class PiiAdversarial : public ::testing::TestWithParam<const char*> {};

TEST_P(PiiAdversarial, ScansOneMebibyteInLinearTime) {
  const std::string unit = GetParam();
  const double small = best_scan_seconds(repeat(unit, 64 << 10));
  const double large = best_scan_seconds(repeat(unit, 1 << 20));
  EXPECT_LT(large, 40 * small + 0.05) << "64 KiB: " << small << " s, 1 MiB: " << large << " s";
  EXPECT_LT(large, 5.0);
}

INSTANTIATE_TEST_SUITE_P(Inputs, PiiAdversarial,
                         ::testing::Values("1234567890", "4111 ", "@", "a@", "a@b.", "[[{{((", "eyJ", "eyJa.",
                                           "-----BEGIN PRIVATE KEY-----", "1.", "1:", "::", "+1 ", "DE89 ",
                                           "born on ", "sk-", "x@y.co ", "123-45-6789 ",
                                           // Disguises: every code point takes the normaliser's slow path;
                                           // combining marks of alternating classes would make one
                                           // unbounded normalisation segment sort quadratically.
                                           "\xEF\xBC\x94\xEF\xBC\x91", "4111\xE2\x80\x8B",
                                           "\xD9\xA4\xD9\xA1 ", "\xCC\x81\xCC\x96", "\xC3\xA9"));

TEST(PiiDetector, TenMegabytesOfDigitsAreNotACard) {
  const std::string digits(10u << 20, '7');
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(scan(digits), V{});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
}

TEST(PiiDetector, IsSafeToShareAcrossThreads) {
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        if (scan("card 4111111111111111 mail a@b.io").size() != 2) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace modelgw::pii
