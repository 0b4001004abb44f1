// The PII validators (core/src/pii/validators.h): real positive and negative
// examples per category, the decoys each validator exists to reject, and
// robustness against arbitrary bytes (these run under ASan+UBSan in CI).
#include "pii/validators.h"

#include <arpa/inet.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace {

std::chrono::nanoseconds thread_cpu_time() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
}

using namespace std::string_literals;
using namespace std::string_view_literals;
namespace pii = modelgw::pii;

// ---------------------------------------------------------------------------
// Luhn and cards

TEST(PiiValidators, LuhnAcceptsKnownTestNumbers) {
  for (std::string_view n : {"4111111111111111", "5555555555554444", "378282246310005", "6011111111111117",
                             "3530111333300000", "2223003122003222", "79927398713", "0", "00", "18"}) {
    EXPECT_TRUE(pii::luhn_valid(n)) << n;
  }
}

TEST(PiiValidators, LuhnRejectsWrongCheckDigitAndNonDigits) {
  for (std::string_view n :
       {"4111111111111112", "5555555555554443", "79927398710", "1", "", "4111 1111 1111 1111",
        "4111-1111-1111-1111", "411111111111111a", "+4111111111111111", "4111111111111111\n"}) {
    EXPECT_FALSE(pii::luhn_valid(n)) << n;
  }
}

TEST(PiiValidators, CardAcceptsKnownTestNumbersOfEveryBrand) {
  for (std::string_view n : {
           "4111111111111111",  // Visa
           "4000056655665556",  // Visa (debit)
           "5555555555554444",  // Mastercard 55
           "5105105105105100",  // Mastercard 51
           "2223003122003222",  // Mastercard 2-series
           "378282246310005",   // Amex
           "6011111111111117",  // Discover
           "3530111333300000",  // JCB
           "30569309025904",    // Diners 305, 14 digits
           "36227206271667",    // Diners 36
           "6200000000000005",  // UnionPay
           "6221260000000000",  // UnionPay
           "6759649826438453",  // Maestro 6759
       }) {
    EXPECT_TRUE(pii::card_number_valid(n)) << n;
  }
}

TEST(PiiValidators, CardAcceptsSingleSpaceOrDashGrouping) {
  EXPECT_TRUE(pii::card_number_valid("4111 1111 1111 1111"));
  EXPECT_TRUE(pii::card_number_valid("4111-1111-1111-1111"));
  EXPECT_TRUE(pii::card_number_valid("3782 822463 10005"));    // Amex 4-6-5
  EXPECT_TRUE(pii::card_number_valid("5555 5555-5555 4444"));  // mixed separators are allowed
  EXPECT_TRUE(pii::card_number_valid("41111111 11111111"));    // group sizes are free
}

// People (and evasions) also write cards with dots or wider gaps between the
// groups; the detector's normalised text turns no-break, zero-width and other
// spaces and dashes into these.
TEST(PiiValidators, CardAcceptsDotsAndRunsOfSpacesBetweenGroups) {
  EXPECT_TRUE(pii::card_number_valid("4111.1111.1111.1111"));
  EXPECT_TRUE(pii::card_number_valid("4111  1111  1111  1111"));
  EXPECT_TRUE(pii::card_number_valid("4111  1111 1111    1111"));
  EXPECT_TRUE(pii::card_number_valid("4111  1111-1111 1111"));
}

TEST(PiiValidators, CardRejectsMalformedSeparators) {
  for (std::string_view n :
       {"4111--1111-1111-1111", " 4111 1111 1111 1111", "4111 1111 1111 1111 ", "-4111-1111-1111-1111",
        "4111-1111-1111-1111-", "4111 - 1111 1111 1111", "4111..1111.1111.1111", ".4111.1111.1111.1111",
        "4111.1111.1111.1111.", "4111_1111_1111_1111", "4111/1111/1111/1111", "4111\t1111\t1111\t1111",
        "4111\n1111\n1111\n1111"}) {
    EXPECT_FALSE(pii::card_number_valid(n)) << n;
  }
}

// "41.11 11.11 11.11 11.11" is a row of prices: a dot is a separator only
// when every separator of the number is one.
TEST(PiiValidators, CardRejectsDotsMixedWithOtherSeparators) {
  for (std::string_view n :
       {"4111.1111 1111.1111", "4111 1111.1111 1111", "4111-1111.1111-1111", "41.11 11.11 11.11 11.11"}) {
    EXPECT_FALSE(pii::card_number_valid(n)) << n;
  }
  EXPECT_EQ(pii::card_number_prefix("4111 1111 1111 1111.5"), 19U) << "a dot after spaces ends the number";
}

TEST(PiiValidators, CardRejectsLuhnFailures) {
  for (std::string_view n : {"4111111111111112", "5555555555554445", "378282246310006", "6011111111111118",
                             "4111 1111 1111 1112", "3530111333300001"}) {
    EXPECT_FALSE(pii::card_number_valid(n)) << n;
  }
}

TEST(PiiValidators, CardRejectsLuhnValidNumbersWithoutAnIssuer) {
  ASSERT_TRUE(pii::luhn_valid("1234567812345670"));
  EXPECT_FALSE(pii::card_number_valid("1234567812345670"));
  ASSERT_TRUE(pii::luhn_valid("0000000000000000"));
  EXPECT_FALSE(pii::card_number_valid("0000000000000000"));
  ASSERT_TRUE(pii::luhn_valid("9999999999999995"));
  EXPECT_FALSE(pii::card_number_valid("9999999999999995"));
}

TEST(PiiValidators, CardRejectsWrongLengths) {
  ASSERT_TRUE(pii::luhn_valid("411111111117"));
  EXPECT_FALSE(pii::card_number_valid("411111111117"));  // 12 digits
  ASSERT_TRUE(pii::luhn_valid("41111111111111111115"));
  EXPECT_FALSE(pii::card_number_valid("41111111111111111115"));  // 20 digits
  EXPECT_FALSE(pii::card_number_valid("4111 1111 1111 1111 1115"));
  EXPECT_FALSE(pii::card_number_valid(""));
  EXPECT_FALSE(pii::card_number_valid("4"));
}

TEST(PiiValidators, CardPrefixYieldsTheCardBeforeTrailingNumbers) {
  EXPECT_EQ(pii::card_number_prefix("4111 1111 1111 1111 2024"), 19U);
  EXPECT_EQ(pii::card_number_prefix("4111-1111-1111-1111-12"), 19U);
  EXPECT_EQ(pii::card_number_prefix("4111111111111111 exp 12/27"), 16U);
  EXPECT_EQ(pii::card_number_prefix("4111 1111 1111 1111"), 19U);
  EXPECT_EQ(pii::card_number_prefix("4111 1111 1111 1111."), 19U);
  EXPECT_EQ(pii::card_number_prefix("4111111111111111)"), 16U);
  EXPECT_EQ(pii::card_number_prefix("378282246310005 and more"), 15U);
}

TEST(PiiValidators, CardPrefixPrefersTheLongestValidCut) {
  // 4111111111111111 + "18" is itself a Luhn-valid 18-digit Visa number.
  EXPECT_EQ(pii::card_number_prefix("4111 1111 1111 1111 18"), 22U);
}

TEST(PiiValidators, CardPrefixNeverCutsInsideARun) {
  EXPECT_EQ(pii::card_number_prefix("41111111111111112024"), std::nullopt);  // 20-digit run
  EXPECT_EQ(pii::card_number_prefix("4111111111111111x"), std::nullopt);
  EXPECT_EQ(pii::card_number_prefix("4111111111111111abc"), std::nullopt);
  EXPECT_EQ(pii::card_number_prefix("4111111111111112 2024"), std::nullopt);
  EXPECT_EQ(pii::card_number_prefix(" 4111111111111111"), std::nullopt);
  EXPECT_EQ(pii::card_number_prefix("x4111111111111111"), std::nullopt);
  EXPECT_EQ(pii::card_number_prefix(""), std::nullopt);
}

// ---------------------------------------------------------------------------
// SSN

TEST(PiiValidators, SsnAcceptsTheThreeShapes) {
  EXPECT_TRUE(pii::ssn_valid("123-45-6789"));
  EXPECT_TRUE(pii::ssn_valid("123 45 6789"));
  EXPECT_TRUE(pii::ssn_valid("123456789"));
  EXPECT_TRUE(pii::ssn_valid("001-01-0001"));  // lowest valid parts
  EXPECT_TRUE(pii::ssn_valid("899-99-9999"));  // highest valid area
  EXPECT_TRUE(pii::ssn_valid("665-12-3456"));
  EXPECT_TRUE(pii::ssn_valid("667-12-3456"));
}

TEST(PiiValidators, SsnRejectsInvalidRanges) {
  for (std::string_view s :
       {"000-12-3456", "666-12-3456", "900-12-3456", "999-99-9999", "950-12-3456", "123-00-4567",
        "123-45-0000", "000000000", "666123456", "123004567", "123450000"}) {
    EXPECT_FALSE(pii::ssn_valid(s)) << s;
  }
}

TEST(PiiValidators, SsnRejectsInconsistentOrOtherShapes) {
  for (std::string_view s : {"123-45 6789", "123 45-6789", "12-345-6789", "1234-5-6789", "123-456-789",
                             "123.45.6789", "123/45/6789", "12345678", "1234567890", "123-45-678",
                             "123-45-67890", "abc-de-fghi", "123-4a-6789", "", "123--45-6789"}) {
    EXPECT_FALSE(pii::ssn_valid(s)) << s;
  }
}

// ---------------------------------------------------------------------------
// IBAN

constexpr std::string_view kExampleIbans[] = {
    "GB82 WEST 1234 5698 7654 32",
    "DE89 3704 0044 0532 0130 00",
    "FR14 2004 1010 0505 0001 3M02 606",
    "ES91 2100 0418 4502 0005 1332",
    "NL91 ABNA 0417 1643 00",
    "IT60 X054 2811 1010 0000 0123 456",
    "BE68 5390 0754 7034",
    "CH93 0076 2011 6238 5295 7",
    "AT61 1904 3002 3457 3201",
    "NO93 8601 1117 947",
    "LC55 HEMM 0001 0001 0012 0012 0002 3015",
    "MT84 MALT 0110 0001 2345 MTLC AST0 01S",
    "PL61 1090 1014 0000 0712 1981 2874",
    "SE45 5000 0000 0583 9825 7466",
    "IE29 AIBK 9311 5212 3456 78",
    "PT50 0002 0123 1234 5678 9015 4",
    "SA03 8000 0000 6080 1016 7519",
    "BR18 0036 0305 0000 1000 9795 493C 1",
};

std::string without_spaces(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != ' ') out += c;
  }
  return out;
}

TEST(PiiValidators, IbanAcceptsRealExamplesPrintedAndElectronic) {
  for (std::string_view iban : kExampleIbans) {
    EXPECT_TRUE(pii::iban_valid(iban)) << iban;
    EXPECT_TRUE(pii::iban_valid(without_spaces(iban))) << iban;
  }
}

TEST(PiiValidators, IbanRejectsEveryOneCharacterChange) {
  // Mod 97 catches every single substitution; try each position of each example.
  for (std::string_view iban : kExampleIbans) {
    const std::string compact = without_spaces(iban);
    for (std::size_t i = 2; i < compact.size(); ++i) {
      std::string changed = compact;
      changed[i] = changed[i] == '9' ? '0' : (changed[i] == 'Z' ? 'A' : static_cast<char>(changed[i] + 1));
      EXPECT_FALSE(pii::iban_valid(changed)) << changed;
    }
  }
  EXPECT_FALSE(pii::iban_valid("GB82 WEST 1234 5698 7654 33"));
  EXPECT_FALSE(pii::iban_valid("DE89 3704 0044 0532 0130 01"));
  EXPECT_FALSE(pii::iban_valid("DE88 3704 0044 0532 0130 00"));
  EXPECT_FALSE(pii::iban_valid("FR14 2004 1010 0505 0001 3M02 607"));
  EXPECT_FALSE(pii::iban_valid("NL91 ABNA 0417 1643 01"));
}

TEST(PiiValidators, IbanRejectsBadLayout) {
  for (std::string_view s : {
           "GB82WEST 1234 5698 7654 32",     // mixed printed and electronic
           "GB82 WEST 12345698 7654 32",     // a group of eight
           "GB82  WEST 1234 5698 7654 32",   // double space
           "GB82 WEST 1234 5698 7654 32 ",   // trailing space
           " GB82 WEST 1234 5698 7654 32",   // leading space
           "GB 82 WEST 1234 5698 7654 32",   // split country and check digits
           "GB82-WEST-1234-5698-7654-32",    // dashes
           "gb82 west 1234 5698 7654 32",    // lower case
           "GB82 west 1234 5698 7654 32",    // lower-case BBAN
           "GB82 WEST 1234 5698 7654 3",     // one character short
           "GB82 WEST 1234 5698 7654 321",   // one too many
           "DE89 3704 0044 0532 0130 00 1",  // a trailing group beyond the length
           "",
           "GB",
           "GB82",
           "GB82 ",
       }) {
    EXPECT_FALSE(pii::iban_valid(s)) << s;
  }
}

TEST(PiiValidators, IbanRejectsUnknownCountriesAndWrongLengths) {
  // Same digits as a valid DE IBAN but a country that issues none / another length.
  EXPECT_FALSE(pii::iban_valid("US89370400440532013000"));
  EXPECT_FALSE(pii::iban_valid("XX89370400440532013000"));
  EXPECT_FALSE(pii::iban_valid("1289370400440532013000"));
  EXPECT_FALSE(pii::iban_valid("DE893704004405320130"));  // DE is 22
}

// An independent mod-97 (chunks of 7 digits) and check-digit computation for
// synthesizing IBANs of every registry length.
std::string with_check_digits(std::string_view country, std::string_view bban) {
  std::string numeric;
  for (char c : std::string(bban) + std::string(country) + "00") {
    numeric += (c >= 'A' && c <= 'Z') ? std::to_string(c - 'A' + 10) : std::string(1, c);
  }
  std::uint64_t r = 0;
  for (std::size_t i = 0; i < numeric.size(); i += 7) {
    const std::string chunk = std::to_string(r) + numeric.substr(i, 7);
    r = std::stoull(chunk) % 97;
  }
  const std::uint64_t check = 98 - r;
  return std::string(country) + (check < 10 ? "0" : "") + std::to_string(check) + std::string(bban);
}

TEST(PiiValidators, IbanKnowsTheRegistryLengthOfEveryCountry) {
  const std::vector<std::pair<std::string_view, std::size_t>> lengths = {
      {"AD", 24}, {"AE", 23}, {"AL", 28}, {"AT", 20}, {"AZ", 28}, {"BA", 20}, {"BE", 16}, {"BG", 22},
      {"BH", 22}, {"BR", 29}, {"BY", 28}, {"CH", 21}, {"CR", 22}, {"CY", 28}, {"CZ", 24}, {"DE", 22},
      {"DK", 18}, {"DO", 28}, {"EE", 20}, {"EG", 29}, {"ES", 24}, {"FI", 18}, {"FO", 18}, {"FR", 27},
      {"GB", 22}, {"GE", 22}, {"GI", 23}, {"GL", 18}, {"GR", 27}, {"GT", 28}, {"HR", 21}, {"HU", 28},
      {"IE", 22}, {"IL", 23}, {"IQ", 23}, {"IS", 26}, {"IT", 27}, {"JO", 30}, {"KW", 30}, {"KZ", 20},
      {"LB", 28}, {"LC", 32}, {"LI", 21}, {"LT", 20}, {"LU", 20}, {"LV", 21}, {"MC", 27}, {"MD", 24},
      {"ME", 22}, {"MK", 19}, {"MR", 27}, {"MT", 31}, {"MU", 30}, {"NL", 18}, {"NO", 15}, {"PK", 24},
      {"PL", 28}, {"PS", 29}, {"PT", 25}, {"QA", 29}, {"RO", 24}, {"RS", 22}, {"SA", 24}, {"SC", 31},
      {"SE", 24}, {"SI", 19}, {"SK", 24}, {"SM", 27}, {"ST", 25}, {"SV", 28}, {"TL", 23}, {"TN", 24},
      {"TR", 26}, {"UA", 29}, {"VA", 22}, {"VG", 24}, {"XK", 20},
  };
  const std::string pool = "1234567890ABCDEFGHIJ0987654321KLMNOPQRST";
  for (const auto& [country, length] : lengths) {
    const std::string iban = with_check_digits(country, pool.substr(0, length - 4));
    ASSERT_EQ(iban.size(), length);
    EXPECT_TRUE(pii::iban_valid(iban)) << iban;
    // The same account with one more or one fewer character is not that country's IBAN.
    EXPECT_FALSE(pii::iban_valid(with_check_digits(country, pool.substr(0, length - 3)))) << country;
    EXPECT_FALSE(pii::iban_valid(with_check_digits(country, pool.substr(0, length - 5)))) << country;
  }
}

TEST(PiiValidators, IbanRejectsCheckDigitsOutside02To98) {
  // Issued check digits are 98 - (n mod 97), so 02-98. The reserved values fail
  // even when mod 97 happens to fit.
  for (std::string_view s : {"DE00370400440532013000", "DE01370400440532013000", "DE99370400440532013000"}) {
    EXPECT_FALSE(pii::iban_valid(s)) << s;
  }
  // Find a BBAN whose true check digits are 97: "00" then also satisfies mod 97.
  for (int i = 0; i < 100000; ++i) {
    std::string bban = std::to_string(i);
    bban = std::string(18 - bban.size(), '0') + bban;
    const std::string iban = with_check_digits("DE", bban);
    if (iban.substr(2, 2) != "97") continue;
    EXPECT_TRUE(pii::iban_valid(iban)) << iban;
    EXPECT_FALSE(pii::iban_valid("DE00" + bban)) << "DE00" << bban;
    return;
  }
  FAIL() << "no BBAN with check digits 97 found";
}

TEST(PiiValidators, IbanPrefixStopsAtTheCountryLength) {
  EXPECT_EQ(pii::iban_prefix("DE89 3704 0044 0532 0130 00 BANK"), 27U);
  EXPECT_EQ(pii::iban_prefix("DE89 3704 0044 0532 0130 00"), 27U);
  EXPECT_EQ(pii::iban_prefix("DE89370400440532013000 is mine"), 22U);
  EXPECT_EQ(pii::iban_prefix("DE89370400440532013000."), 22U);
  EXPECT_EQ(pii::iban_prefix("GB82 WEST 1234 5698 7654 32, thanks"), 27U);
  EXPECT_EQ(pii::iban_prefix("BE68 5390 0754 7034 1234"), 19U);  // a trailing group is separate text
  EXPECT_EQ(pii::iban_prefix("NO93 8601 1117 947"), 18U);
  EXPECT_EQ(pii::iban_prefix("LC55 HEMM 0001 0001 0012 0012 0002 3015"), 39U);
}

TEST(PiiValidators, IbanPrefixRejectsRunOnsAndInvalidPrefixes) {
  EXPECT_EQ(pii::iban_prefix("DE89370400440532013000123"), std::nullopt);
  EXPECT_EQ(pii::iban_prefix("DE89 3704 0044 0532 0130 00BANK"), std::nullopt);
  EXPECT_EQ(pii::iban_prefix("DE89 3704 0044 0532 0130 0012 34"), std::nullopt);
  EXPECT_EQ(pii::iban_prefix("DE89 3704 0044 0532 0130 01 BANK"), std::nullopt);
  EXPECT_EQ(pii::iban_prefix("DE89 3704 0044"), std::nullopt);
  EXPECT_EQ(pii::iban_prefix("US89 3704 0044 0532 0130 00"), std::nullopt);
  EXPECT_EQ(pii::iban_prefix("de89 3704 0044 0532 0130 00"), std::nullopt);
  EXPECT_EQ(pii::iban_prefix("D"), std::nullopt);
  EXPECT_EQ(pii::iban_prefix(""), std::nullopt);
}

// ---------------------------------------------------------------------------
// IP addresses

TEST(PiiValidators, Ipv4AcceptsDottedQuads) {
  for (std::string_view s : {"192.168.1.1", "0.0.0.0", "255.255.255.255", "10.0.0.1", "8.8.8.8", "1.2.3.4",
                             "100.64.0.10", "203.0.113.250"}) {
    EXPECT_TRUE(pii::ipv4_valid(s)) << s;
  }
}

TEST(PiiValidators, Ipv4RejectsOutOfRangeLeadingZerosAndOtherShapes) {
  for (std::string_view s : {"256.1.1.1", "1.256.1.1",  "1.1.1.256",  "999.1.1.1",  "01.2.3.4", "1.02.3.4",
                             "1.2.3.00",  "00.0.0.0",   "1.2.3",      "1.2.3.4.5",  "1..2.3",   ".1.2.3.4",
                             "1.2.3.4.",  "1.2.3.4 ",   " 1.2.3.4",   "1.2.3.-4",   "+1.2.3.4", "1.2.3.a",
                             "0x1.2.3.4", "1234.1.1.1", "1.2.3.4/24", "1.2.3.4:80", "",         "1,2,3,4"}) {
    EXPECT_FALSE(pii::ipv4_valid(s)) << s;
  }
}

TEST(PiiValidators, Ipv6AcceptsAddressesThatNameAHost) {
  for (std::string_view s :
       {"2001:db8::1", "2001:0db8:85a3:0000:0000:8a2e:0370:7334", "2001:db8:85a3::8a2e:370:7334",
        "::ffff:192.0.2.1", "2001:DB8::A:1", "fe80::1:2", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8",
        "1:2:3:4:5:6:1.2.3.4", "64:ff9b::192.0.2.33", "2001:db8:0:0:1:0:0:1"}) {
    EXPECT_TRUE(pii::ipv6_valid(s)) << s;
  }
}

TEST(PiiValidators, Ipv6RejectsFewerThanThreeGroups) {
  for (std::string_view s : {"d::", "a::b", "::1", "fe80::1", "::", "2001:db8::", "::192.0.2.1", "1::"}) {
    EXPECT_FALSE(pii::ipv6_valid(s)) << s;
  }
}

TEST(PiiValidators, Ipv6RejectsMalformedText) {
  for (std::string_view s : {
           "1:2:3:4:5:6:7",                                   // seven groups, no "::"
           "1:2:3:4:5:6:7:8:9",                               // nine
           "1:2:3:4:5:6:7:8::",                               // "::" with eight groups
           "1::2::3:4",                                       // two "::"
           "1:::2:3:4",                                       // ":::"
           "12345::1:2",                                      // five hex digits
           "g::1:2",                                          // not hex
           ":1:2:3:4:5:6:7",                                  // leading single colon
           "1:2:3:4:5:6:7:",                                  // trailing single colon
           "1.2.3.4::1:2",                                    // IPv4 not at the end
           "::ffff:256.0.2.1",                                // bad IPv4 tail
           "::ffff:01.0.2.1",                                 // leading zero in the tail
           "fe80::1:2%eth0",                                  // zone index
           "[2001:db8::1]",                                   // brackets
           "2001:db8::1/64",                                  // prefix length
           "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.2550",  // 46 bytes
           "std::vector::at",
           "a::b::c",
           "",
       }) {
    EXPECT_FALSE(pii::ipv6_valid(s)) << s;
  }
}

// The groups an address spells out, counting an IPv4 tail as two: the test's
// own reading of the header's "at least three non-empty groups" rule.
int explicit_groups(std::string_view s) {
  int groups = 0;
  std::size_t i = 0;
  while (i <= s.size()) {
    const std::size_t colon = std::min(s.find(':', i), s.size());
    const std::string_view field = s.substr(i, colon - i);
    if (!field.empty()) groups += field.find('.') != std::string_view::npos ? 2 : 1;
    i = colon + 1;
  }
  return groups;
}

TEST(PiiValidators, Ipv6AgreesWithInetPton) {
  std::mt19937 rng(20240115);
  const std::string_view alphabet = "0123456789abcdefABCDEF:::.";
  int accepted = 0;
  auto check = [&accepted](const std::string& s) {
    in6_addr addr{};
    const bool pton = inet_pton(AF_INET6, s.c_str(), &addr) == 1;
    const bool expected = pton && explicit_groups(s) >= 3;
    EXPECT_EQ(pii::ipv6_valid(s), expected) << s;
    accepted += expected ? 1 : 0;
  };
  for (int round = 0; round < 200000; ++round) {
    std::string s;
    const std::size_t len = rng() % 24;
    for (std::size_t i = 0; i < len; ++i) s += alphabet[rng() % alphabet.size()];
    check(s);
  }
  // Structured: eight random groups, with a random run compressed to "::" and
  // sometimes an IPv4 tail.
  for (int round = 0; round < 20000; ++round) {
    std::vector<std::string> groups;
    const bool v4 = rng() % 3 == 0;
    const std::size_t n = v4 ? 6 : 8;
    for (std::size_t i = 0; i < n; ++i) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "%x", static_cast<unsigned>(rng() % 3 == 0 ? 0 : rng() % 65536));
      groups.emplace_back(buf);
    }
    if (v4) {
      groups.push_back(std::to_string(rng() % 300) + "." + std::to_string(rng() % 256) + "." +
                       std::to_string(rng() % 256) + "." + std::to_string(rng() % 256));
    }
    const std::size_t from = rng() % (groups.size() + 1);
    const std::size_t to = from + rng() % (groups.size() + 1 - from);
    std::string s;
    for (std::size_t i = 0; i < groups.size(); ++i) {
      if (from < to && i == from) s += i == 0 ? "::" : ":";
      if (from < to && i >= from && i < to) continue;
      s += groups[i];
      if (i + 1 < groups.size()) s += ":";
    }
    check(s);
  }
  EXPECT_GT(accepted, 5000);  // the comparison covered plenty of real addresses
}

// ---------------------------------------------------------------------------
// Phone numbers

TEST(PiiValidators, PhoneAcceptsE164WithSeparators) {
  for (std::string_view s :
       {"+14155550134", "+1 415 555 0134", "+1-415-555-0134", "+1 (415) 555-0134", "+44 20 7946 0958",
        "+44 (0) 20 7946 0958", "+44(0)20 7946 0958", "+49 30 1234567", "+49/30/1234567", "+33 6 12 34 56 78",
        "+33.6.12.34.56.78", "+34 612 34 56 78", "+39 347 123 4567", "+81 3-1234-5678", "+86 138 0013 8000",
        "+31612345678"}) {
    EXPECT_TRUE(pii::phone_valid(s)) << s;
  }
}

TEST(PiiValidators, PhoneRejectsBadE164) {
  for (std::string_view s : {
           "+1234567",             // 7 digits
           "+1234567890123456",    // 16 digits
           "+0 415 555 0134",      // country code 0
           "+ 44 20 7946 0958",    // separator after +
           "+44  20 7946 0958",    // doubled separator
           "+44 20 7946 0958 ",    // trailing separator
           "+44 -20 7946 0958",    // two separators
           "+44 (0 20 7946 0958",  // unclosed parenthesis
           "+44 (0) (20) 7946",    // two parenthesized groups
           "+44 ((0)) 20 7946 0958",
           "+44 20 7946 0958+",  // '+' not leading
           "++44 20 7946 0958",
           "+1234567890",   // a counting run
           "+11111111111",  // all the same digit
           "+44 20 7946 0958 ext 12",
       }) {
    EXPECT_FALSE(pii::phone_valid(s)) << s;
  }
}

TEST(PiiValidators, PhoneAcceptsNanpFormats) {
  for (std::string_view s :
       {"(415) 555-0134", "(415)555-0134", "415-555-0134", "415.555.0134", "415 555 0134", "1-415-555-0134",
        "1 (415) 555-0134", "1.415.555.0134", "1 415 555 0134", "(212) 555-1234", "234-567-8901"}) {
    EXPECT_TRUE(pii::phone_valid(s)) << s;
  }
}

TEST(PiiValidators, PhoneRejectsBadNanp) {
  for (std::string_view s : {
           "4155550134",      // ten bare digits: indistinguishable from an order number
           "14155550134",     // eleven bare
           "115-555-0134",    // area code starts with 1
           "415-155-0134",    // exchange starts with 1
           "415-055-0134",    // exchange starts with 0
           "911-555-0134",    // N11 area code
           "2-415-555-0134",  // country code other than 1
           "415-5550-134",    // wrong grouping
           "4155-55-0134",
           "415/555/0134",  // slashes are not a NANP style
           "(415) (555) 0134",
           "415-555-0134 ",
           "(415 555-0134",
           "415) 555-0134",
           "1 415 555 01345",
       }) {
    EXPECT_FALSE(pii::phone_valid(s)) << s;
  }
}

TEST(PiiValidators, PhoneAcceptsEuropeanNationalFormats) {
  for (std::string_view s : {"030 1234567", "020 7946 0958", "07700 900123", "06 12 34 56 78",
                             "01.23.45.67.89", "0612345678", "089/12345678", "(030) 1234567", "0171 1234567",
                             "0171-1234567", "06-12345678", "02 9876 5432", "0221 1234567"}) {
    EXPECT_TRUE(pii::phone_valid(s)) << s;
  }
}

// The national formats of the corpus languages as people write them.
TEST(PiiValidators, PhoneAcceptsGermanFormats) {
  const std::vector<std::vector<std::string_view>> groups = {
      // mobiles: 12 digits with the trunk 0
      {"0151 41398296", "0179-90698900", "0151/41398296", "015141398296", "0151 4139 8296", "0176 12345678"},
      // short city lines: 9 digits
      {"069/686114", "069 686114", "(069) 686114", "069-686114", "04321 1234"},
      {"030 12345678", "0221 1234567", "+49 (0)69 686114", "+49 151 41398296"},
      // 00 for "+"
      {"0049 69 686114", "0049 (0)69 686114", "0049 151 41398296", "0049-30-1234567"},
  };
  for (const auto& group : groups) {
    for (std::string_view s : group) EXPECT_TRUE(pii::phone_valid(s)) << s;
  }
}

TEST(PiiValidators, PhoneRejectsGermanLookalikes) {
  for (std::string_view s : {
           "069686114",             // 9 bare digits: a customer or order number
           "069 68 61 14",          // 9 digits in pairs: dates and counts look the same
           "030 1234567891",        // 13 digits
           "0301 23456789",         // 12 digits, not a mobile prefix
           "01514139829 6",         // a mobile's prefix must be a group of its own
           "0151 41398296 7",       // 13 digits
           "0151/4139 8296",        // two separator kinds
           "069/686 114/",          // trailing separator
           "0049 69686114",         // 00 form: two groups after the country code at least
           "0012 3456 7890",        // 00 form: only European country codes (a reference number)
           "0049 69 68",            // 00 form: too few digits
           "0049 (0)151 41398296",  // 16 digits
       }) {
    EXPECT_FALSE(pii::phone_valid(s)) << s;
  }
}

TEST(PiiValidators, PhoneAcceptsOtherNationalFormats) {
  const std::vector<std::vector<std::string_view>> by_country = {
      {"06 12 34 56 78", "06.12.34.56.78", "01 23 45 67 89"},                               // fr
      {"612 345 678", "612 34 56 78", "91 123 45 67", "93-123-45-67"},                      // es
      {"347 123 4567", "347 1234567", "347/1234567", "333 123 45 67", "06 1234 5678"},      // it
      {"02 1234567", "0039 347 1234567"},                                                   // it
      {"06-12345678", "020 123 4567", "0201234567", "(020) 123 4567", "0031 20 123 4567"},  // nl
      {"07700 900123", "020 7946 0018", "0161 496 0000", "(020) 7946 0018"},                // en-GB
  };
  for (const auto& country : by_country) {
    for (std::string_view s : country) EXPECT_TRUE(pii::phone_valid(s)) << s;
  }
}

TEST(PiiValidators, PhoneRejectsOtherNationalLookalikes) {
  for (std::string_view s : {
           "3471234567",      // Italian mobile, bare: an order number
           "300 123 4567",    // no Italian operator prefix 30x; not NANP either (exchange 1xx)
           "347 12 345 678",  // unusual Italian grouping
           "347-123 4567",    // two separator kinds
           "3-16-148410-0",   // an ISBN-10
           "71 123 45 67",    // 2-3-2-2 only for Spanish landlines (8, 9)
           "91.131.24.36",    // 2-3-2-2 dotted: an IPv4 address
           "91 12 34 56 7",
           "02 12 34 56 7",  // 9 digits in pairs
       }) {
    EXPECT_FALSE(pii::phone_valid(s)) << s;
  }
}

TEST(PiiValidators, PhoneAcceptsSpanishGroupedNineDigits) {
  for (std::string_view s : {"612 34 56 78", "612 345 678", "912 34 56 78", "712.34.56.78", "812-345-678"}) {
    EXPECT_TRUE(pii::phone_valid(s)) << s;
  }
}

TEST(PiiValidators, PhoneRejectsBadEuropeanAndSpanish) {
  for (std::string_view s : {
           "0123456789",      // counting run, bare
           "9876543210",      // counting down
           "030 12345",       // 8 digits
           "030 123456789",   // 12 digits, not a German mobile
           "0030 1234567",    // 00 is not a trunk prefix
           "0 30 1234567",    // one-digit first group
           "030 1 234567",    // one-digit group
           "030/123 4567",    // two separator kinds
           "030 (123) 4567",  // parenthesized group not first
           "612345678",       // Spanish, ungrouped
           "512 34 56 78",    // Spanish must start 6-9
           "612 3456 78",     // Spanish, unusual grouping
           "612/34/56/78",
       }) {
    EXPECT_FALSE(pii::phone_valid(s)) << s;
  }
}

TEST(PiiValidators, PhoneRejectsDecoys) {
  for (std::string_view s : {
           "2024-01-15",        // ISO date
           "15.01.2024",        // European date
           "01/15/2024",        // US date
           "15.01.2024 10:30",  // date and time
           "01/15/2024 10",     // date and hour, mixed separators
           "12:30:45",          // time
           "10:30",
           "1234567890",  // counting run
           "0000000000",  // all the same
           "5555555555",
           "(000) 000-0000",
           "000-000-0000",
           "4820193847",  // an order number
           "ORD-4820193847",
           "#4820193847",
           "100-2345-6789",         // a reference number
           "3.14159265358",         // a decimal
           "192.168.100.200",       // an IPv4 address
           "1.2.3.4.5.6.7.8.9.10",  // a version-ish string
           "",
           "+",
           "()",
           "-",
           "0",
       }) {
    EXPECT_FALSE(pii::phone_valid(s)) << s;
  }
}

// ---------------------------------------------------------------------------
// Dates of birth

TEST(PiiValidators, DateAcceptsNumericFormats) {
  for (std::string_view s :
       {"1984-03-12", "1984/03/12", "1984.03.12", "1984-3-12", "12/03/1984", "03/12/1984", "12.03.1984",
        "12-03-1984", "1.3.1984", "31/12/1999", "12/31/1999", "01.01.1900", "31.12.2030"}) {
    EXPECT_TRUE(pii::birth_date_valid(s)) << s;
  }
}

TEST(PiiValidators, DateChecksTheCalendar) {
  EXPECT_TRUE(pii::birth_date_valid("29.02.2000"));  // divisible by 400: leap
  EXPECT_TRUE(pii::birth_date_valid("2000-02-29"));
  EXPECT_TRUE(pii::birth_date_valid("29/02/1984"));
  EXPECT_TRUE(pii::birth_date_valid("29 February 2000"));
  EXPECT_FALSE(pii::birth_date_valid("29.02.1900"));  // divisible by 100: not leap
  EXPECT_FALSE(pii::birth_date_valid("1900-02-29"));
  EXPECT_FALSE(pii::birth_date_valid("29 February 1900"));
  EXPECT_FALSE(pii::birth_date_valid("29.02.1985"));
  EXPECT_FALSE(pii::birth_date_valid("30.02.2000"));
  EXPECT_FALSE(pii::birth_date_valid("31/04/1990"));  // neither reading is real
  EXPECT_FALSE(pii::birth_date_valid("31 April 1990"));
  EXPECT_FALSE(pii::birth_date_valid("04/31/1990"));
  EXPECT_TRUE(pii::birth_date_valid("30/04/1990"));
  EXPECT_FALSE(pii::birth_date_valid("1984-13-01"));  // year first is always year-month-day
  EXPECT_FALSE(pii::birth_date_valid("1984-02-30"));
  EXPECT_FALSE(pii::birth_date_valid("00/01/1984"));
  EXPECT_FALSE(pii::birth_date_valid("13/13/1984"));
  EXPECT_FALSE(pii::birth_date_valid("32.01.1984"));
}

TEST(PiiValidators, DateTriesBothDayMonthOrders) {
  EXPECT_TRUE(pii::birth_date_valid("13/12/1984"));  // only day-first works
  EXPECT_TRUE(pii::birth_date_valid("12/13/1984"));  // only month-first works
  EXPECT_TRUE(pii::birth_date_valid("12.13.1984"));
}

TEST(PiiValidators, DateRejectsYearsOutside1900To2030) {
  EXPECT_FALSE(pii::birth_date_valid("12.03.1850"));
  EXPECT_FALSE(pii::birth_date_valid("1850-03-12"));
  EXPECT_FALSE(pii::birth_date_valid("12 March 1850"));
  EXPECT_FALSE(pii::birth_date_valid("31.12.1899"));
  EXPECT_FALSE(pii::birth_date_valid("01.01.2031"));
  EXPECT_FALSE(pii::birth_date_valid("2099-01-01"));
}

TEST(PiiValidators, DateRejectsOtherNumericShapes) {
  for (std::string_view s :
       {"12/03-1984", "12.03/1984", "12 03 1984", "12/03/84", "123/03/1984", "12/003/1984", "12/03/19840",
        "1984-03-123", "19840-03-12", "1984-03", "12/03/", "/12/03/1984", "12/03/1984/", "1984-03-12T10:00",
        "12:03:1984", "1984_03_12", "84-03-12"}) {
    EXPECT_FALSE(pii::birth_date_valid(s)) << s;
  }
}

TEST(PiiValidators, DateAcceptsEnglishMonthNames) {
  for (std::string_view s :
       {"March 12, 1984", "March 12 1984",      "12 March 1984",  "12 Mar 1984",      "12 Mar. 1984",
        "Mar. 12, 1984",  "Sept. 3, 1975",      "3 Sep 1975",     "12th March 1984",  "1st May 1990",
        "2nd June 1990",  "3rd July 1990",      "4th July 1990",  "March 12th, 1984", "12 MARCH 1984",
        "12 march 1984",  "12th of March 1984", "12 March, 1984", "12-Mar-1984",      "Dec 31, 1999"}) {
    EXPECT_TRUE(pii::birth_date_valid(s)) << s;
  }
}

TEST(PiiValidators, DateAcceptsGermanMonthNames) {
  for (std::string_view s :
       {"12. März 1984", "12. märz 1984", "12. MÄRZ 1984", "12. Maerz 1984", "12 März 1984", "1. Januar 1970",
        "3. Jänner 1970", "24. Dezember 1980", "3. Okt. 1990", "12. Mär 1984", "31. Mai 1960",
        "15. Juni 1975", "15. Juli 1975", "1. Oktober 1999"}) {
    EXPECT_TRUE(pii::birth_date_valid(s)) << s;
  }
}

TEST(PiiValidators, DateAcceptsFrenchMonthNames) {
  for (std::string_view s :
       {"3 février 1975", "3 fevrier 1975", "3 FÉVRIER 1975", "1er mars 1980", "1er janvier 2000",
        "15 août 1969", "15 aout 1969", "25 décembre 1990", "25 déc. 1990", "14 juillet 1989",
        "14 juil. 1989", "5 juin 1989", "5 jui 1989", "3 févr. 1975", "2 avr. 1980", "11 novembre 1918"}) {
    EXPECT_TRUE(pii::birth_date_valid(s)) << s;
  }
}

TEST(PiiValidators, DateAcceptsSpanishAndItalianMonthNames) {
  for (std::string_view s :
       {"12 de marzo de 1984", "12 de marzo del 1984", "12 marzo 1984", "1 de enero de 2000",
        "5 de septiembre de 1975", "5 de setiembre de 1975", "24 diciembre 1990", "7 de ago. de 1960",
        "12 gennaio 1984", "25 dicembre 1990", "2 giugno 1946", "14 luglio 1989", "9 settembre 1943",
        "12 gen 1984", "12 Ott 1984"}) {
    EXPECT_TRUE(pii::birth_date_valid(s)) << s;
  }
}

TEST(PiiValidators, DateRejectsBadTextualDates) {
  for (std::string_view s : {
           "31 April 1990",  // not a real date
           "30 février 1975",
           "31 juin 1990",
           "12 Marchh 1984",  // not a month
           "12 Ma 1984",      // too short to be an abbreviation
           "12 Smarch 1984",
           "12 March",    // no year
           "March 1984",  // no day
           "March 12",
           "12 March 84",     // two-digit year
           "12  March 1984",  // double space
           "12 March 1984 ",
           " 12 March 1984",
           "12 de de marzo 1984",  // doubled connector
           "de 12 marzo 1984",     // leading connector
           "12 marzo 1984 de",
           "March de 12 1984",  // connectors only in the day-first order
           "2er mars 1980",     // "er" only after 1
           "12xx March 1984",
           "123 March 1984",
           "12, March 1984",
           "March, 12 1984",
           "March 12. 1984",
           "12 March 1984 12",
           "12 3 1984",
           "12 Mar-1984",
           "12 ao\xc3 1984",     // abbreviation cut inside a UTF-8 character
           "12 M\xc3\xa4 1984",  // two characters only
       }) {
    EXPECT_FALSE(pii::birth_date_valid(s)) << s;
  }
}

// ---------------------------------------------------------------------------
// JWT

std::string base64url(std::string_view in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : in) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(acc >> bits) & 63];
    }
  }
  if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 63];
  return out;
}

constexpr std::string_view kJwtIoExample =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

TEST(PiiValidators, JwtAcceptsRealTokens) {
  EXPECT_TRUE(pii::jwt_shaped(kJwtIoExample));
  EXPECT_TRUE(pii::jwt_shaped(base64url(R"({"alg":"RS256","kid":"k1"})") + "." + base64url(R"({"sub":"u"})") +
                              ".c2lnbmF0dXJl"));
  EXPECT_TRUE(pii::jwt_shaped(base64url(" \n{\"typ\":\"JWT\",\"alg\":\"none\"}") + ".e30.x_-0"));
}

TEST(PiiValidators, JwtRejectsWrongSegmentStructure) {
  const std::string header = base64url(R"({"alg":"HS256"})");
  for (const std::string& s : std::vector<std::string>{
           header + ".e30",           // two segments
           header + ".e30.sig.more",  // four
           header + ".e30.",          // empty signature
           header + "..sig",          // empty payload
           "." + header + ".e30.sig",
           header + ".e30.sig=",  // padding is not base64url JWT
           header + "=.e30.sig",
           header + ".e3+0.sig",  // '+' is base64, not base64url
           header + ".e30.si/g",
           header + ".e30.sig ",
           header + ".e30.s",  // one leftover character is not base64
           "1.2.3",
           "a.b.c",
           "config.local.json",
           "www.example.com",
           "",
       }) {
    EXPECT_FALSE(pii::jwt_shaped(s)) << s;
  }
}

TEST(PiiValidators, JwtRequiresAJsonHeaderMentioningAlg) {
  EXPECT_FALSE(pii::jwt_shaped(base64url(R"({"typ":"JWT"})") + ".e30.sig"));
  EXPECT_FALSE(pii::jwt_shaped(base64url(R"(["alg"])") + ".e30.sig"));
  EXPECT_FALSE(pii::jwt_shaped(base64url(R"(x{"alg":"HS256"})") + ".e30.sig"));
  EXPECT_FALSE(pii::jwt_shaped(base64url(R"({alg:"HS256"})") + ".e30.sig"));
  EXPECT_FALSE(pii::jwt_shaped("e30.e30.sig"));  // "{}"
}

TEST(PiiValidators, JwtDecodesOnlyTheFirst2KiBOfTheHeader) {
  const std::string early = "{\"alg\":\"HS256\",\"pad\":\"" + std::string(4000, 'p') + "\"}";
  EXPECT_TRUE(pii::jwt_shaped(base64url(early) + ".e30.sig"));
  const std::string late = "{\"pad\":\"" + std::string(4000, 'p') + "\",\"alg\":\"HS256\"}";
  EXPECT_FALSE(pii::jwt_shaped(base64url(late) + ".e30.sig"));
}

// ---------------------------------------------------------------------------
// Key bodies

TEST(PiiValidators, KeyBodyAcceptsLongMixedAlphanumerics) {
  for (std::string_view s :
       {"Abcdefghij0123456789", "aB3dE5gH7jK9mN1pQ3sT5vX7", "proj-4fGh7Kl9Qw2Er5Ty8Ui1Op3As6Df",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AKIAIOSFODNN7EXAMPLE", "xoxb-1234567890-abcdefghij"}) {
    EXPECT_TRUE(pii::key_body_plausible(s)) << s;
  }
}

TEST(PiiValidators, KeyBodyRejectsShortWordyOrOddText) {
  for (std::string_view s : {"sk-this-is-not-a-real-key-at-all", "this-is-not-a-real-key-at-all",
                             "Abcdefghij012345678",         // 19 characters
                             "abcdefghijklmnopqrstuvwxyz",  // letters only
                             "12345678901234567890123",     // digits only
                             "abcdefghij 0123456789",       // a space
                             "abcdefghij0123456789\n",
                             "abcdefghij\xc3\xa9"
                             "0123456789",
                             "", "-_-_-_-_-_-_-_-_-_-_-_"}) {
    EXPECT_FALSE(pii::key_body_plausible(s)) << s;
  }
  EXPECT_TRUE(pii::key_body_plausible("a1" + std::string(4094, 'x')));
  EXPECT_FALSE(pii::key_body_plausible("a1" + std::string(4095, 'x')));  // longer than any real key
}

// ---------------------------------------------------------------------------
// Email

TEST(PiiValidators, EmailAcceptsOrdinaryAddresses) {
  for (std::string_view s :
       {"john.doe@example.com", "a@b.co", "user+tag@sub.example.co.uk", "first_last@example.org",
        "o'brien@example.ie", "x-y@my-host.example", "JOHN@EXAMPLE.COM", "1234@example.com",
        "user@xn--bcher-kva.example", "user@example.museum"}) {
    EXPECT_TRUE(pii::email_valid(s)) << s;
  }
  EXPECT_TRUE(pii::email_valid(std::string(64, 'a') + "@example.com"));
  EXPECT_TRUE(pii::email_valid("a@" + std::string(63, 'b') + ".com"));
}

TEST(PiiValidators, EmailRejectsMalformedAddresses) {
  for (std::string_view s : {
           ".john@example.com",
           "john.@example.com",
           "jo..hn@example.com",
           "@example.com",
           "john@",
           "john@example",
           "john@.example.com",
           "john@example.com.",
           "john@example..com",
           "john@-example.com",
           "john@example-.com",
           "john@example.c",
           "john@example.c0m",
           "john@example.abcdefghijklmnopqrstuvwxy",
           "john@@example.com",
           "jo@hn@example.com",
           "john@exa mple.com",
           "jo hn@example.com",
           "john@exa_mple.com",
           "john(at)example.com",
           "john@a.b",
           "\"john\"@example.com",
           "jöhn@example.com",
           "john@exämple.com",
           "",
       }) {
    EXPECT_FALSE(pii::email_valid(s)) << s;
  }
  EXPECT_FALSE(pii::email_valid(std::string(65, 'a') + "@example.com"));
  EXPECT_FALSE(pii::email_valid("a@" + std::string(64, 'b') + ".com"));
  std::string long_domain;
  while (long_domain.size() < 260) long_domain += std::string(9, 'd') + ".";
  EXPECT_FALSE(pii::email_valid("a@" + long_domain + "com"));  // domain over 253
}

// ---------------------------------------------------------------------------
// Robustness

struct NamedValidator {
  std::string_view name;
  std::function<bool(std::string_view)> fn;
};

std::vector<NamedValidator> all_validators() {
  return {
      {"luhn_valid", pii::luhn_valid},
      {"card_number_valid", pii::card_number_valid},
      {"card_number_prefix", [](std::string_view s) { return pii::card_number_prefix(s).has_value(); }},
      {"ssn_valid", pii::ssn_valid},
      {"iban_valid", pii::iban_valid},
      {"iban_prefix", [](std::string_view s) { return pii::iban_prefix(s).has_value(); }},
      {"ipv4_valid", pii::ipv4_valid},
      {"ipv6_valid", pii::ipv6_valid},
      {"phone_valid", pii::phone_valid},
      {"birth_date_valid", pii::birth_date_valid},
      {"jwt_shaped", pii::jwt_shaped},
      {"key_body_plausible", pii::key_body_plausible},
      {"email_valid", pii::email_valid},
  };
}

TEST(PiiValidators, EveryValidatorRejectsHostileInputQuickly) {
  const std::string nines(10 * 1024 * 1024, '9');
  const std::vector<std::pair<std::string_view, std::string>> inputs = {
      {"empty", ""},
      {"10 MB of 9", nines},
      {"10 MB + 1 of 9", nines + "9"},
      {"1 MB of @", std::string(1024 * 1024, '@')},
      {"1 MB of spaces", std::string(1024 * 1024, ' ')},
      {"1 MB of dots", std::string(1024 * 1024, '.')},
      {"1 MB of colons", std::string(1024 * 1024, ':')},
      {"1 MB of 4111 groups",
       [] {
         std::string s;
         while (s.size() < 1024 * 1024) s += "4111 ";
         return s;
       }()},
      {"NUL", "\0"s},
      {"NULs", std::string(64, '\0')},
      {"NUL then card",
       "\0"
       "4111111111111111"s},
      {"card around NUL", "4111 1111\0 1111 1111"s},
      {"NUL then IBAN", "\0DE89 3704 0044 0532 0130 00"s},
      {"IPv6 with NUL", "2001:db8::1\0"s},
      {"email with NUL", "john@example.com\0"s},
      {"invalid UTF-8 ff fe", "\xff\xfe"},
      {"truncated UTF-8", "\xc3"},
      {"date with truncated UTF-8", "12 M\xc3"},
      {"date with invalid bytes", "12 \xff\xfe\xfd 1984"},
      {"lone continuation bytes", "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80"},
      {"high bytes", std::string(100000, '\xc3')},
  };
  for (const NamedValidator& v : all_validators()) {
    for (const auto& [label, input] : inputs) {
      // CPU time of this thread, not wall time: a quadratic validator is
      // caught however busy the machine is, and a busy machine fails nothing.
      const auto start = thread_cpu_time();
      const bool result = v.fn(input);
      const auto elapsed = thread_cpu_time() - start;
      if (v.name == "luhn_valid" && input.find_first_not_of('9') == std::string::npos && !input.empty()) {
        // A run of n nines has Luhn sum 9n: honestly valid when n is a multiple
        // of 10, as 10 MiB is. Every validator that means "PII" rejects it.
        EXPECT_EQ(result, input.size() % 10 == 0) << v.name << " on " << label;
      } else {
        EXPECT_FALSE(result) << v.name << " on " << label;
      }
      EXPECT_LT(elapsed, std::chrono::milliseconds(500)) << v.name << " on " << label;
    }
  }
}

TEST(PiiValidators, ValidInputsWithAnAppendedNulAreRejected) {
  // NUL is a byte like any other: never part of a value, and for the prefix
  // functions a boundary like any other non-alphanumeric byte.
  EXPECT_EQ(pii::card_number_prefix("4111111111111111\0"s), 16U);
  EXPECT_EQ(pii::iban_prefix("DE89 3704 0044 0532 0130 00\0"s), 27U);
  EXPECT_FALSE(pii::iban_prefix("DE89 3704 0044 0532 0130 0\0"s).has_value());
  EXPECT_FALSE(pii::card_number_valid("4111111111111111\0"s));
  EXPECT_FALSE(pii::ssn_valid("123-45-6789\0"s));
  EXPECT_FALSE(pii::iban_valid("DE89370400440532013000\0"s));
  EXPECT_FALSE(pii::ipv4_valid("1.2.3.4\0"s));
  EXPECT_FALSE(pii::ipv6_valid("2001:db8::1\0"s));
  EXPECT_FALSE(pii::phone_valid("+14155550134\0"s));
  EXPECT_FALSE(pii::birth_date_valid("1984-03-12\0"s));
  EXPECT_FALSE(pii::jwt_shaped(std::string(kJwtIoExample) + "\0"s));
  EXPECT_FALSE(pii::key_body_plausible("Abcdefghij0123456789\0"s));
  EXPECT_FALSE(pii::email_valid("john@example.com\0"s));
}

TEST(PiiValidators, RandomBytesNeverCrashAndPrefixesAgreeWithValidators) {
  std::mt19937 rng(7);
  const std::string_view interesting = "0123456789 -./:@+()ABZaez\xc3\xa4\xff";
  for (int round = 0; round < 100000; ++round) {
    std::string s;
    const std::size_t len = rng() % 48;
    for (std::size_t i = 0; i < len; ++i) {
      s += rng() % 4 == 0 ? static_cast<char>(rng() % 256) : interesting[rng() % interesting.size()];
    }
    for (const NamedValidator& v : all_validators()) (void)v.fn(s);
    if (pii::card_number_valid(s)) {
      EXPECT_EQ(pii::card_number_prefix(s), s.size()) << s;
    }
    if (pii::iban_valid(s)) {
      EXPECT_EQ(pii::iban_prefix(s), s.size()) << s;
    }
  }
}

}  // namespace
