#include "pii/validators.h"

#include "util/ascii.h"

#include <array>
#include <cstdint>
#include <initializer_list>

namespace modelgw::pii {
namespace {

using util::ascii_lower;

// Character classes. <cctype> is locale-dependent and UB for negative chars;
// these are plain ASCII tests that accept any byte.
constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
constexpr bool is_upper(char c) {
  return c >= 'A' && c <= 'Z';
}
constexpr bool is_lower(char c) {
  return c >= 'a' && c <= 'z';
}
constexpr bool is_alpha(char c) {
  return is_upper(c) || is_lower(c);
}
constexpr bool is_alnum(char c) {
  return is_digit(c) || is_alpha(c);
}
constexpr bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
constexpr int digit_value(char c) {
  return c - '0';
}

// Parses `s` (ASCII digits only, at most 9 of them) as a number.
int to_int(std::string_view s) {
  int v = 0;
  for (char c : s) v = v * 10 + digit_value(c);
  return v;
}

// ---------------------------------------------------------------------------
// Luhn and payment cards

// Luhn over `digits`, which the caller has checked are all ASCII digits. The
// sum is kept mod 10 so any length is safe.
bool luhn_digits(std::string_view digits) {
  unsigned sum = 0;
  bool doubled = false;
  for (std::size_t i = digits.size(); i-- > 0;) {
    unsigned d = static_cast<unsigned>(digit_value(digits[i]));
    if (doubled) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    if (sum >= 10) sum -= 10;
    doubled = !doubled;
  }
  return sum == 0;
}

constexpr std::size_t kCardMinDigits = 13;
constexpr std::size_t kCardMaxDigits = 19;

// The issuer ranges from the header comment, tested on the leading digits.
bool card_issuer_known(std::string_view d) {
  const int p1 = to_int(d.substr(0, 1));
  const int p2 = to_int(d.substr(0, 2));
  const int p3 = to_int(d.substr(0, 3));
  const int p4 = to_int(d.substr(0, 4));
  const int p6 = to_int(d.substr(0, 6));
  if (p1 == 4) return true;                                                         // Visa
  if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return true;            // Mastercard
  if (p2 == 34 || p2 == 37) return true;                                            // Amex
  if (p4 == 6011 || (p3 >= 644 && p3 <= 649) || p2 == 65) return true;              // Discover
  if (p4 >= 3528 && p4 <= 3589) return true;                                        // JCB
  if ((p3 >= 300 && p3 <= 305) || p2 == 36 || p2 == 38 || p2 == 39) return true;    // Diners
  if (p2 == 62) return true;                                                        // UnionPay
  if (p2 == 50 || (p2 >= 56 && p2 <= 58) || p4 == 6304 || p4 == 6759) return true;  // Maestro
  return p6 == 676770 || p6 == 676774;                                              // Maestro
}

bool card_digits_valid(std::string_view d) {
  return d.size() >= kCardMinDigits && d.size() <= kCardMaxDigits && card_issuer_known(d) && luhn_digits(d);
}

// ---------------------------------------------------------------------------
// IBAN

struct IbanCountry {
  char code[3];
  std::uint8_t length;
};

// SWIFT IBAN registry: country code and total IBAN length. Territories that use
// another country's IBANs (Åland -> FI, Jersey -> GB, the French DOM -> FR)
// appear under that country's code and need no entry.
constexpr IbanCountry kIbanCountries[] = {
    {"AD", 24}, {"AE", 23}, {"AL", 28}, {"AT", 20}, {"AZ", 28}, {"BA", 20}, {"BE", 16}, {"BG", 22},
    {"BH", 22}, {"BI", 27}, {"BR", 29}, {"BY", 28}, {"CH", 21}, {"CR", 22}, {"CY", 28}, {"CZ", 24},
    {"DE", 22}, {"DJ", 27}, {"DK", 18}, {"DO", 28}, {"EE", 20}, {"EG", 29}, {"ES", 24}, {"FI", 18},
    {"FK", 18}, {"FO", 18}, {"FR", 27}, {"GB", 22}, {"GE", 22}, {"GI", 23}, {"GL", 18}, {"GR", 27},
    {"GT", 28}, {"HN", 28}, {"HR", 21}, {"HU", 28}, {"IE", 22}, {"IL", 23}, {"IQ", 23}, {"IS", 26},
    {"IT", 27}, {"JO", 30}, {"KW", 30}, {"KZ", 20}, {"LB", 28}, {"LC", 32}, {"LI", 21}, {"LT", 20},
    {"LU", 20}, {"LV", 21}, {"LY", 25}, {"MC", 27}, {"MD", 24}, {"ME", 22}, {"MK", 19}, {"MN", 20},
    {"MR", 27}, {"MT", 31}, {"MU", 30}, {"NI", 28}, {"NL", 18}, {"NO", 15}, {"OM", 23}, {"PK", 24},
    {"PL", 28}, {"PS", 29}, {"PT", 25}, {"QA", 29}, {"RO", 24}, {"RS", 22}, {"RU", 33}, {"SA", 24},
    {"SC", 31}, {"SD", 18}, {"SE", 24}, {"SI", 19}, {"SK", 24}, {"SM", 27}, {"SO", 23}, {"ST", 25},
    {"SV", 28}, {"TL", 23}, {"TN", 24}, {"TR", 26}, {"UA", 29}, {"VA", 22}, {"VG", 24}, {"XK", 20},
    {"YE", 30},
};

constexpr std::size_t kIbanMinLength = 15;  // NO
constexpr std::size_t kIbanMaxLength = 34;  // ISO 13616's bound; RU (33) is the longest in use

// The IBAN length for a country code, 0 when the code is not in the registry.
std::size_t iban_length(std::string_view s) {
  if (s.size() < 2) return 0;
  for (const IbanCountry& c : kIbanCountries) {
    if (c.code[0] == s[0] && c.code[1] == s[1]) return c.length;
  }
  return 0;
}

// Checks the compact form (no spaces): country, length, check digits, mod 97.
bool iban_compact_valid(std::string_view b) {
  if (b.size() < kIbanMinLength || b.size() > kIbanMaxLength) return false;
  if (!is_upper(b[0]) || !is_upper(b[1]) || !is_digit(b[2]) || !is_digit(b[3])) return false;
  if (iban_length(b) != b.size()) return false;
  // ISO 13616 check digits are 98 - (n mod 97), so 02-98; "00", "01" and "99"
  // can satisfy the mod-97 test by accident but are never issued.
  const int check = digit_value(b[2]) * 10 + digit_value(b[3]);
  if (check < 2 || check > 98) return false;
  // Mod 97 of the rearranged string (BBAN, then country and check digits),
  // letters as 10-35, folded in one character at a time so no big integer is
  // needed: the remainder stays below 97 and r * 100 + 35 fits easily.
  unsigned r = 0;
  for (std::size_t k = 0; k < b.size(); ++k) {
    const char c = b[(k + 4) % b.size()];
    if (is_digit(c)) {
      r = (r * 10 + static_cast<unsigned>(digit_value(c))) % 97;
    } else if (is_upper(c)) {
      r = (r * 100 + static_cast<unsigned>(c - 'A' + 10)) % 97;
    } else {
      return false;
    }
  }
  return r == 1;
}

// ---------------------------------------------------------------------------
// IP addresses

// Strict dotted quad: four 1-3 digit octets 0-255, no leading zeros.
bool parse_ipv4(std::string_view s) {
  std::size_t i = 0;
  int parts = 0;
  while (true) {
    const std::size_t start = i;
    int value = 0;
    while (i < s.size() && is_digit(s[i]) && i - start < 3) {
      value = value * 10 + digit_value(s[i]);
      ++i;
    }
    const std::size_t len = i - start;
    if (len == 0 || (len > 1 && s[start] == '0') || value > 255) return false;
    ++parts;
    if (i == s.size()) return parts == 4;
    if (s[i] != '.' || parts == 4) return false;
    ++i;
  }
}

// Counts the 16-bit groups in one side of an IPv6 address (the text before or
// after "::", or all of it): fields of 1-4 hex digits separated by single ':'.
// When `ipv4_tail` is set the last field may be a dotted quad, worth two
// groups. Returns -1 if malformed; 0 for empty `part`.
int ipv6_groups(std::string_view part, bool ipv4_tail) {
  if (part.empty()) return 0;
  int count = 0;
  std::size_t i = 0;
  while (true) {
    const std::size_t colon = part.find(':', i);
    const std::string_view field =
        part.substr(i, colon == std::string_view::npos ? std::string_view::npos : colon - i);
    if (field.empty()) return -1;
    if (colon == std::string_view::npos && ipv4_tail && field.find('.') != std::string_view::npos) {
      return parse_ipv4(field) ? count + 2 : -1;
    }
    if (field.size() > 4) return -1;
    for (char c : field) {
      if (!is_hex(c)) return -1;
    }
    ++count;
    if (colon == std::string_view::npos) return count;
    i = colon + 1;
  }
}

// ---------------------------------------------------------------------------
// Phone numbers

constexpr std::size_t kPhoneMaxDigits = 15;  // E.164

// A phone candidate split into digit groups. Between groups there is exactly
// one separator from " .-/", or a parenthesis, or ") " / " (" around the one
// parenthesized group.
struct PhoneParse {
  std::array<char, kPhoneMaxDigits> digits{};
  std::size_t n = 0;
  std::array<std::uint8_t, kPhoneMaxDigits> group_len{};
  std::size_t groups = 0;
  int paren_group = -1;
  unsigned plain_seps = 0;  // bit set of the single-character separators used (kSep*)
  bool plus = false;

  std::string_view digit_view() const { return {digits.data(), n}; }
};

constexpr unsigned kSepSpace = 1;
constexpr unsigned kSepDot = 2;
constexpr unsigned kSepDash = 4;
constexpr unsigned kSepSlash = 8;

unsigned plain_separator_bit(char c) {
  switch (c) {
    case ' ':
      return kSepSpace;
    case '.':
      return kSepDot;
    case '-':
      return kSepDash;
    case '/':
      return kSepSlash;
    default:
      return 0;
  }
}

bool parse_phone(std::string_view s, PhoneParse& p) {
  std::size_t i = 0;
  if (!s.empty() && s[0] == '+') {
    p.plus = true;
    i = 1;
  }
  bool open = false;
  bool paren_used = false;
  while (i < s.size()) {
    const std::size_t run_start = i;
    while (i < s.size() && !is_digit(s[i])) ++i;
    if (i == s.size()) return false;  // trailing separator (or nothing but separators)
    const std::string_view run = s.substr(run_start, i - run_start);
    bool opens = false;
    if (p.groups == 0) {
      if (run == "(") {
        opens = true;
      } else if (!run.empty()) {
        return false;
      }
    } else if (open) {
      // The parenthesized group is exactly one group: close it now.
      if (run != ")" && run != ") ") return false;
      open = false;
    } else if (run == "(" || run == " (") {
      opens = true;
    } else if (run.size() == 1 && plain_separator_bit(run[0]) != 0) {
      p.plain_seps |= plain_separator_bit(run[0]);
    } else {
      return false;
    }
    if (opens) {
      if (paren_used) return false;
      paren_used = open = true;
      p.paren_group = static_cast<int>(p.groups);
    }
    const std::size_t start = i;
    while (i < s.size() && is_digit(s[i])) {
      if (p.n == kPhoneMaxDigits) return false;
      p.digits[p.n++] = s[i++];
    }
    const std::size_t len = i - start;
    if (open && len > 5) return false;  // "(0)", "(415)", "(0221)": a trunk or area code
    p.group_len[p.groups++] = static_cast<std::uint8_t>(len);
  }
  return p.groups > 0 && !open;
}

bool all_same(std::string_view d) {
  for (char c : d) {
    if (c != d[0]) return false;
  }
  return true;
}

// 0123456789, 1234567890, 9876543210: digits that count straight up or down.
bool counting_run(std::string_view d) {
  bool up = true;
  bool down = true;
  for (std::size_t i = 1; i < d.size(); ++i) {
    const int a = digit_value(d[i - 1]);
    const int b = digit_value(d[i]);
    up = up && b == (a + 1) % 10;
    down = down && a == (b + 1) % 10;
  }
  return up || down;
}

bool group_lengths_are(const PhoneParse& p, std::initializer_list<int> lens) {
  if (p.groups != lens.size()) return false;
  std::size_t k = 0;
  for (int len : lens) {
    if (p.group_len[k++] != len) return false;
  }
  return true;
}

// NANP: [1] NXX NXX XXXX, written in three (or, with the 1, four) groups.
bool nanp_phone(const PhoneParse& p) {
  const std::string_view d = p.digit_view();
  std::size_t off = 0;
  if (d.size() == 10 && group_lengths_are(p, {3, 3, 4}) && p.paren_group <= 0) {
    off = 0;
  } else if (d.size() == 11 && d[0] == '1' && group_lengths_are(p, {1, 3, 3, 4}) &&
             (p.paren_group == -1 || p.paren_group == 1)) {
    off = 1;
  } else {
    return false;
  }
  if ((p.plain_seps & kSepSlash) != 0) return false;
  // Area code and exchange start 2-9; N11 area codes are service numbers (911).
  if (d[off] < '2' || d[off + 3] < '2') return false;
  return !(d[off + 1] == '1' && d[off + 2] == '1');
}

bool one_separator_kind(const PhoneParse& p) {
  return (p.plain_seps & (p.plain_seps - 1)) == 0;
}

// German mobile prefixes 015x, 016x, 017x: the one national format with 12
// digits (trunk 0 included) that people write every day.
bool german_mobile_prefix(std::string_view d) {
  return d.size() >= 4 && d[0] == '0' && d[1] == '1' && d[2] >= '5' && d[2] <= '7';
}

// European national format: trunk 0 then a non-zero digit, either one
// unbroken run or groups joined by one kind of separator with the first group
// (trunk + area code, 2-5 digits, optionally parenthesized) first.
//  - 10-11 digits: any such grouping (groups of 2-8), or bare.
//  - 12 digits: a German mobile only, its 4-digit prefix a group of its own
//    ("0151 41398296", "0179-90698900") or bare ("015141398296").
//  - 9 digits: a short city line (Frankfurt "069/686114", "(069) 686114",
//    Milan "02 1234567"): grouped, the subscriber number in groups of 3 or
//    more, so dates and pairs ("01 23 45 67 8") are not read as one.
bool european_phone(const PhoneParse& p) {
  const std::string_view d = p.digit_view();
  if (d.size() < 9 || d.size() > 12 || d[0] != '0' || d[1] == '0') return false;
  if (p.groups == 1) return (d.size() >= 10 && d.size() <= 11) || (d.size() == 12 && german_mobile_prefix(d));
  if (!one_separator_kind(p) || p.paren_group > 0) return false;
  if (p.group_len[0] < 2 || p.group_len[0] > 5) return false;
  for (std::size_t k = 1; k < p.groups; ++k) {
    if (p.group_len[k] < (d.size() == 9 ? 3 : 2) || p.group_len[k] > 8) return false;
  }
  if (d.size() == 12) return p.group_len[0] == 4 && german_mobile_prefix(d);
  return true;
}

// Spanish: 9 digits starting 6-9, no trunk prefix; only accepted in the usual
// 3-2-2-2 or 3-3-3 groupings since 9 bare digits are too often something else,
// and landlines (8 or 9 first) also as 2-3-2-2 ("91 123 45 67", Madrid; not
// with dots).
bool spanish_phone(const PhoneParse& p) {
  const std::string_view d = p.digit_view();
  if (d.size() != 9 || d[0] < '6' || p.paren_group != -1) return false;
  if (!one_separator_kind(p) || (p.plain_seps & kSepSlash) != 0) return false;
  // Dotted, 2-3-2-2 is an IPv4 address ("91.131.24.36").
  if (d[0] >= '8' && (p.plain_seps & kSepDot) == 0 && group_lengths_are(p, {2, 3, 2, 2})) return true;
  return group_lengths_are(p, {3, 2, 2, 2}) || group_lengths_are(p, {3, 3, 3});
}

// Italian mobiles: 10 digits starting 3 and an operator digit 1-9, no trunk
// prefix, the 3-digit operator prefix a group of its own: "347 123 4567",
// "347 1234567", "347/1234567", "347 123 45 67" (one separator kind). Bare
// ten digits stay unread (order numbers look the same).
bool italian_mobile(const PhoneParse& p) {
  const std::string_view d = p.digit_view();
  if (d.size() != 10 || d[0] != '3' || d[1] == '0' || p.paren_group != -1) return false;
  if (!one_separator_kind(p)) return false;
  return group_lengths_are(p, {3, 3, 4}) || group_lengths_are(p, {3, 7}) ||
         group_lengths_are(p, {3, 3, 2, 2});
}

// "0049 69 686114", "0049 (0)69 686114", "0039 347 1234567": the
// international prefix 00 written where E.164 has "+". Only for European
// country codes (3x, 4x: every corpus country), with 00 and the code a group
// of their own and at least two groups after it, so a reference number with
// leading zeros ("0012 3456 7890", "0030 1234567") is not read as one.
bool international_00(const PhoneParse& p) {
  const std::string_view d = p.digit_view();
  if (p.groups < 3 || p.paren_group == 0 || p.group_len[0] < 4 || p.group_len[0] > 5) return false;
  if (d[2] != '3' && d[2] != '4') return false;
  const std::string_view rest = d.substr(2);
  return rest.size() >= 8 && rest.size() <= 13;
}

// ---------------------------------------------------------------------------
// Dates

constexpr int kMinBirthYear = 1900;
constexpr int kMaxBirthYear = 2030;

bool real_date(int year, int month, int day) {
  if (year < kMinBirthYear || year > kMaxBirthYear || month < 1 || month > 12 || day < 1) return false;
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return day <= kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

// YYYY-MM-DD or D/M/YYYY-style: three numbers joined by one repeated separator
// from "-/.". Day and month may have one or two digits.
bool numeric_date(std::string_view s) {
  std::size_t i = 0;
  std::array<int, 3> value{};
  std::array<std::size_t, 3> len{};
  char sep = 0;
  for (std::size_t k = 0; k < 3; ++k) {
    if (k > 0) {
      if (i >= s.size()) return false;
      const char c = s[i++];
      if (k == 1) {
        if (c != '-' && c != '/' && c != '.') return false;
        sep = c;
      } else if (c != sep) {
        return false;
      }
    }
    const std::size_t start = i;
    while (i < s.size() && is_digit(s[i]) && i - start < 4) ++i;
    len[k] = i - start;
    if (len[k] == 0) return false;
    value[k] = to_int(s.substr(start, len[k]));
  }
  if (i != s.size()) return false;
  if (len[0] == 4) return len[1] <= 2 && len[2] <= 2 && real_date(value[0], value[1], value[2]);
  if (len[0] <= 2 && len[1] <= 2 && len[2] == 4) {
    // Day-first (most of the world) or month-first (US): either reading will do.
    return real_date(value[2], value[1], value[0]) || real_date(value[2], value[0], value[1]);
  }
  return false;
}

struct MonthName {
  std::string_view name;  // lower case, UTF-8
  int month;
};

// Full month names, lower-cased. Abbreviations are matched as prefixes of these,
// so only spellings that are not prefixes of another entry need listing
// separately (accent-less French, the German "ae" for "ä").
constexpr MonthName kMonthNames[] = {
    // English
    {"january", 1},
    {"february", 2},
    {"march", 3},
    {"april", 4},
    {"may", 5},
    {"june", 6},
    {"july", 7},
    {"august", 8},
    {"september", 9},
    {"october", 10},
    {"november", 11},
    {"december", 12},
    // German (and Austrian Jänner)
    {"januar", 1},
    {"jänner", 1},
    {"jaenner", 1},
    {"februar", 2},
    {"märz", 3},
    {"maerz", 3},
    {"mai", 5},
    {"juni", 6},
    {"juli", 7},
    {"oktober", 10},
    {"dezember", 12},
    // French
    {"janvier", 1},
    {"février", 2},
    {"fevrier", 2},
    {"mars", 3},
    {"avril", 4},
    {"juin", 6},
    {"juillet", 7},
    {"août", 8},
    {"aout", 8},
    {"septembre", 9},
    {"octobre", 10},
    {"novembre", 11},
    {"décembre", 12},
    {"decembre", 12},
    // Spanish (setiembre: Peru, Uruguay)
    {"enero", 1},
    {"febrero", 2},
    {"marzo", 3},
    {"abril", 4},
    {"mayo", 5},
    {"junio", 6},
    {"julio", 7},
    {"agosto", 8},
    {"septiembre", 9},
    {"setiembre", 9},
    {"octubre", 10},
    {"noviembre", 11},
    {"diciembre", 12},
    // Italian
    {"gennaio", 1},
    {"febbraio", 2},
    {"aprile", 4},
    {"maggio", 5},
    {"giugno", 6},
    {"luglio", 7},
    {"settembre", 9},
    {"ottobre", 10},
    {"dicembre", 12},
};

constexpr bool is_utf8_continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// The months (bit m set for month m) that `word` names: a full name or an
// abbreviation of at least three characters ("Mar", "Sept", "janv", "févr").
// "jui" is both juin and juillet, hence a set. Case-insensitive for ASCII and
// for the Latin-1 letters (U+00C0-U+00DE, two bytes starting 0xC3) so "MÄRZ"
// and "FÉVRIER" match too.
unsigned month_mask(std::string_view word) {
  std::array<char, 12> buf{};
  std::size_t n = 0;
  std::size_t chars = 0;
  for (std::size_t i = 0; i < word.size(); ++i) {
    auto c = static_cast<unsigned char>(word[i]);
    if (n == buf.size()) return 0;
    if (c < 0x80) {
      if (!is_alpha(static_cast<char>(c))) return 0;
      c = static_cast<unsigned char>(ascii_lower(static_cast<char>(c)));
    } else if (i > 0 && static_cast<unsigned char>(word[i - 1]) == 0xC3 && c >= 0x80 && c <= 0x9E &&
               c != 0x97) {  // 0x97 is U+00D7, the multiplication sign
      c = static_cast<unsigned char>(c + 0x20);
    }
    if (!is_utf8_continuation(c)) ++chars;
    buf[n++] = static_cast<char>(c);
  }
  if (chars < 3) return 0;
  const std::string_view w(buf.data(), n);
  unsigned mask = 0;
  for (const MonthName& m : kMonthNames) {
    if (m.name.size() < n || m.name.substr(0, n) != w) continue;
    // Not an abbreviation that stops inside a multi-byte character.
    if (m.name.size() > n && is_utf8_continuation(static_cast<unsigned char>(m.name[n]))) continue;
    mask |= 1U << m.month;
  }
  return mask;
}

bool equals_folded(std::string_view s, std::string_view lower) {
  if (s.size() != lower.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (ascii_lower(s[i]) != lower[i]) return false;
  }
  return true;
}

enum class DateTokenKind { kDay, kMonth, kYear, kConnector };

struct DateToken {
  DateTokenKind kind = DateTokenKind::kDay;
  int value = 0;        // day or year
  unsigned months = 0;  // kMonth
  bool dot = false;     // "12." (German day) or "Mar." (abbreviation)
  bool comma = false;   // "12," or "March,"
};

bool classify_date_token(std::string_view t, DateToken& out) {
  if (!t.empty() && t.back() == ',') {
    out.comma = true;
    t.remove_suffix(1);
  }
  if (!t.empty() && t.back() == '.') {
    out.dot = true;
    t.remove_suffix(1);
  }
  if (t.empty()) return false;
  std::size_t digits = 0;
  while (digits < t.size() && is_digit(t[digits])) ++digits;
  if (digits == 4 && t.size() == 4) {
    if (out.dot || out.comma) return false;
    out.kind = DateTokenKind::kYear;
    out.value = to_int(t);
    return true;
  }
  if (digits == 1 || digits == 2) {
    out.kind = DateTokenKind::kDay;
    out.value = to_int(t.substr(0, digits));
    const std::string_view suffix = t.substr(digits);
    if (suffix.empty()) return true;
    // English ordinals are accepted whichever number they follow ("2th" is a
    // typo, not a reason to miss a birth date); French "1er" only after 1.
    if (equals_folded(suffix, "st") || equals_folded(suffix, "nd") || equals_folded(suffix, "rd") ||
        equals_folded(suffix, "th")) {
      return true;
    }
    return equals_folded(suffix, "er") && out.value == 1;
  }
  if (digits != 0) return false;
  if (!out.dot && !out.comma &&
      (equals_folded(t, "de") || equals_folded(t, "del") || equals_folded(t, "of"))) {
    out.kind = DateTokenKind::kConnector;
    return true;
  }
  out.kind = DateTokenKind::kMonth;
  out.months = month_mask(t);
  return out.months != 0;
}

bool some_month_fits(int year, unsigned months, int day) {
  for (int m = 1; m <= 12; ++m) {
    if ((months & (1U << m)) != 0 && real_date(year, m, day)) return true;
  }
  return false;
}

// "12 March 1984", "12. März 1984", "12 de marzo de 1984", "1er mars 1980",
// "12th of March 1984", "12 Mar, 1984", "12-Mar-1984", "March 12, 1984".
bool textual_date(std::string_view s) {
  constexpr std::size_t kMaxTokens = 5;  // day, connector, month, connector, year
  // One separator throughout: spaces, or dashes for the "12-Mar-1984" style.
  const char sep = s.find(' ') != std::string_view::npos ? ' ' : '-';
  std::array<DateToken, kMaxTokens> tok{};
  std::size_t count = 0;
  std::size_t i = 0;
  while (true) {
    const std::size_t end = s.find(sep, i);
    const std::string_view t = s.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i);
    if (count == kMaxTokens || !classify_date_token(t, tok[count])) return false;
    ++count;
    if (end == std::string_view::npos) break;
    i = end + 1;
  }
  // Strip connectors, remembering there were some only between parts.
  std::array<DateToken, 3> core{};
  std::size_t n = 0;
  for (std::size_t k = 0; k < count; ++k) {
    if (tok[k].kind == DateTokenKind::kConnector) {
      if (k == 0 || k + 1 == count || tok[k - 1].kind == DateTokenKind::kConnector) return false;
      continue;
    }
    if (n == core.size()) return false;
    core[n++] = tok[k];
  }
  if (n != 3 || core[2].kind != DateTokenKind::kYear) return false;
  const DateToken& year = core[2];
  if (core[0].kind == DateTokenKind::kDay && core[1].kind == DateTokenKind::kMonth) {
    if (core[0].comma) return false;
    return some_month_fits(year.value, core[1].months, core[0].value);
  }
  if (core[0].kind == DateTokenKind::kMonth && core[1].kind == DateTokenKind::kDay) {
    if (core[0].comma || core[1].dot || count != 3) return false;
    return some_month_fits(year.value, core[0].months, core[1].value);
  }
  return false;
}

// ---------------------------------------------------------------------------
// JWT

int base64url_value(char c) {
  if (is_upper(c)) return c - 'A';
  if (is_lower(c)) return c - 'a' + 26;
  if (is_digit(c)) return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

constexpr std::size_t kJwtHeaderDecodeLimit = 2048;

// ---------------------------------------------------------------------------
// Email

constexpr bool is_atext(char c) {
  if (is_alnum(c)) return true;
  switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '/':
    case '=':
    case '?':
    case '^':
    case '_':
    case '`':
    case '{':
    case '|':
    case '}':
    case '~':
    case '-':
      return true;
    default:
      return false;
  }
}

}  // namespace

bool luhn_valid(std::string_view digits) {
  if (digits.empty()) return false;
  for (char c : digits) {
    if (!is_digit(c)) return false;
  }
  return luhn_digits(digits);
}

bool card_number_valid(std::string_view candidate) {
  const std::optional<std::size_t> prefix = card_number_prefix(candidate);
  return prefix && *prefix == candidate.size();
}

std::optional<std::size_t> card_number_prefix(std::string_view candidate) {
  std::array<char, kCardMaxDigits> digits{};
  std::size_t n = 0;
  std::optional<std::size_t> best;
  bool dots = false;    // the groups so far are joined by dots
  bool others = false;  // ... by spaces or dashes
  for (std::size_t i = 0; i <= candidate.size();) {
    const bool end = i == candidate.size();
    const char c = end ? '\0' : candidate[i];
    if (!end && is_digit(c)) {
      if (n == digits.size()) break;  // a 20th digit: no cut inside this run
      digits[n++] = c;
      ++i;
      continue;
    }
    // A digit group ends here (or the input is malformed: a leading or doubled separator).
    if (i == 0 || !is_digit(candidate[i - 1])) break;
    if ((end || !is_alnum(c)) && card_digits_valid({digits.data(), n})) best = i;
    if (end) break;
    // The separator: a run of spaces, a dash or a dot. A dot never joins groups
    // that a space or dash also joins: "41.11 11.11 11.11 11.11" is prices.
    if (c == ' ') {
      while (i < candidate.size() && candidate[i] == ' ') ++i;
      others = true;
    } else if (c == '-') {
      ++i;
      others = true;
    } else if (c == '.') {
      ++i;
      dots = true;
    } else {
      break;
    }
    if (dots && others) break;
  }
  return best;
}

bool ssn_valid(std::string_view candidate) {
  std::array<char, 9> d{};
  if (candidate.size() == 9) {
    for (std::size_t i = 0; i < 9; ++i) d[i] = candidate[i];
  } else if (candidate.size() == 11) {
    const char sep = candidate[3];
    if ((sep != '-' && sep != ' ') || candidate[6] != sep) return false;
    std::size_t n = 0;
    for (std::size_t i = 0; i < 11; ++i) {
      if (i != 3 && i != 6) d[n++] = candidate[i];
    }
  } else {
    return false;
  }
  for (char c : d) {
    if (!is_digit(c)) return false;
  }
  const std::string_view v(d.data(), d.size());
  const int area = to_int(v.substr(0, 3));
  const int group = to_int(v.substr(3, 2));
  const int serial = to_int(v.substr(5, 4));
  return area != 0 && area != 666 && area < 900 && group != 0 && serial != 0;
}

bool iban_valid(std::string_view candidate) {
  // Printed form: a space at every fifth position, none at the end.
  const bool printed = candidate.size() > 4 && candidate[4] == ' ';
  if (printed && candidate.size() % 5 == 0) return false;
  std::array<char, kIbanMaxLength> compact{};
  std::size_t n = 0;
  for (std::size_t i = 0; i < candidate.size(); ++i) {
    const char c = candidate[i];
    if (printed && i % 5 == 4) {
      if (c != ' ') return false;
      continue;
    }
    if (!is_upper(c) && !is_digit(c)) return false;
    if (n == compact.size()) return false;
    compact[n++] = c;
  }
  return iban_compact_valid({compact.data(), n});
}

std::optional<std::size_t> iban_prefix(std::string_view candidate) {
  const std::size_t length = iban_length(candidate);
  if (length == 0) return std::nullopt;
  const bool printed = candidate.size() > 4 && candidate[4] == ' ';
  const std::size_t bytes = printed ? length + (length - 1) / 4 : length;
  if (candidate.size() < bytes) return std::nullopt;
  // The IBAN must not run on into more letters or digits ("...3000123").
  if (bytes < candidate.size() && is_alnum(candidate[bytes])) return std::nullopt;
  if (!iban_valid(candidate.substr(0, bytes))) return std::nullopt;
  return bytes;
}

bool ipv4_valid(std::string_view candidate) {
  return parse_ipv4(candidate);
}

bool ipv6_valid(std::string_view candidate) {
  // 45 bytes is the longest text form: six full groups and a dotted quad.
  if (candidate.size() < 2 || candidate.size() > 45) return false;
  const std::size_t gap = candidate.find("::");
  int groups = 0;
  if (gap == std::string_view::npos) {
    groups = ipv6_groups(candidate, true);
    if (groups != 8) return false;
  } else {
    if (candidate.find("::", gap + 1) != std::string_view::npos) return false;  // ":::" or a second "::"
    const int head = ipv6_groups(candidate.substr(0, gap), false);
    const int tail = ipv6_groups(candidate.substr(gap + 2), true);
    if (head < 0 || tail < 0) return false;
    groups = head + tail;
    if (groups > 7) return false;  // "::" stands for at least one zero group
  }
  return groups >= 3;
}

bool phone_valid(std::string_view candidate) {
  PhoneParse p;
  if (!parse_phone(candidate, p)) return false;
  const std::string_view d = p.digit_view();
  if (all_same(d)) return false;
  // An unbroken 0123456789 is a placeholder or a test string; written in a
  // phone's groups ("01.23.45.67.89") it is kept.
  if (p.groups == 1 && counting_run(d)) return false;
  if (p.plus) return d.size() >= 8 && d[0] != '0';  // no country code starts with 0
  if (d.size() > 2 && d[0] == '0' && d[1] == '0') return international_00(p);
  return nanp_phone(p) || european_phone(p) || spanish_phone(p) || italian_mobile(p);
}

bool birth_date_valid(std::string_view candidate) {
  // "12 de septiembre de 1984" is the longest shape; anything much longer is not a date.
  if (candidate.empty() || candidate.size() > 40) return false;
  if (is_digit(candidate[0]) && numeric_date(candidate)) return true;
  return textual_date(candidate);
}

bool jwt_shaped(std::string_view candidate) {
  std::array<std::size_t, 2> dots{};
  std::size_t ndots = 0;
  for (std::size_t i = 0; i < candidate.size(); ++i) {
    const char c = candidate[i];
    if (c == '.') {
      if (ndots == dots.size()) return false;
      dots[ndots++] = i;
    } else if (base64url_value(c) < 0) {
      return false;
    }
  }
  if (ndots != 2) return false;
  const std::string_view header = candidate.substr(0, dots[0]);
  const std::string_view payload = candidate.substr(dots[0] + 1, dots[1] - dots[0] - 1);
  const std::string_view signature = candidate.substr(dots[1] + 1);
  for (std::string_view seg : {header, payload, signature}) {
    // One leftover character carries only 6 bits: no base64 text has that length.
    if (seg.empty() || seg.size() % 4 == 1) return false;
  }
  std::array<char, kJwtHeaderDecodeLimit> text{};
  std::size_t n = 0;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : header) {
    acc = ((acc << 6) | static_cast<std::uint32_t>(base64url_value(c))) & 0xFFFFFFu;
    bits += 6;
    if (bits >= 8) {
      if (n == text.size()) break;
      bits -= 8;
      text[n++] = static_cast<char>((acc >> bits) & 0xFFu);
    }
  }
  std::string_view json(text.data(), n);
  while (!json.empty() && (json[0] == ' ' || json[0] == '\t' || json[0] == '\r' || json[0] == '\n')) {
    json.remove_prefix(1);
  }
  return !json.empty() && json[0] == '{' && json.find("\"alg\"") != std::string_view::npos;
}

bool key_body_plausible(std::string_view body) {
  constexpr std::size_t kMinLength = 20;
  constexpr std::size_t kMaxLength = 4096;
  if (body.size() < kMinLength || body.size() > kMaxLength) return false;
  bool letter = false;
  bool digit = false;
  for (char c : body) {
    if (is_alpha(c)) {
      letter = true;
    } else if (is_digit(c)) {
      digit = true;
    } else if (c != '-' && c != '_' && c != '+' && c != '/' && c != '=' && c != '.') {
      return false;
    }
  }
  return letter && digit;
}

bool email_valid(std::string_view candidate) {
  constexpr std::size_t kMaxLocal = 64;
  constexpr std::size_t kMinDomain = 4;
  constexpr std::size_t kMaxDomain = 253;
  if (candidate.size() > kMaxLocal + 1 + kMaxDomain) return false;
  const std::size_t at = candidate.find('@');
  if (at == std::string_view::npos) return false;
  const std::string_view local = candidate.substr(0, at);
  const std::string_view domain = candidate.substr(at + 1);
  if (local.empty() || local.size() > kMaxLocal || local.front() == '.' || local.back() == '.') return false;
  char prev = 0;
  for (char c : local) {
    if (c == '.' ? prev == '.' : !is_atext(c)) return false;
    prev = c;
  }
  if (domain.size() < kMinDomain || domain.size() > kMaxDomain) return false;
  std::size_t labels = 0;
  std::size_t i = 0;
  while (true) {
    const std::size_t dot = domain.find('.', i);
    const std::string_view label =
        domain.substr(i, dot == std::string_view::npos ? std::string_view::npos : dot - i);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
    for (char c : label) {
      if (!is_alnum(c) && c != '-') return false;
    }
    ++labels;
    if (dot == std::string_view::npos) {
      if (labels < 2 || label.size() < 2 || label.size() > 24) return false;
      for (char c : label) {
        if (!is_alpha(c)) return false;
      }
      return true;
    }
    i = dot + 1;
  }
}

}  // namespace modelgw::pii
