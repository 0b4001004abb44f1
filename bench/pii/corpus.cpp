#include "corpus.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>

namespace modelgw::bench::pii {
namespace {

// A small deterministic generator (splitmix64): the same sequence on every
// platform, unlike the standard distributions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  char digit() { return static_cast<char>('0' + below(10)); }
  char from(std::string_view alphabet) { return alphabet[below(alphabet.size())]; }
  template <class T, std::size_t N>
  const T& pick(const std::array<T, N>& a) {
    return a[below(N)];
  }

 private:
  std::uint64_t state_;
};

constexpr std::string_view kUpperAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
constexpr std::string_view kB64Url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr std::string_view kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Chat sentences without PII (support, development, travel, small talk); a
// few carry numbers that are not PII (versions, prices, times, counts).
constexpr std::array<std::string_view, 24> kSentences = {
    "Hi, I need some help with the dashboard, it keeps logging me out. ",
    "The export to CSV works for small reports but times out for the yearly one. ",
    "Could you explain how the retry policy decides when to give up? ",
    "We upgraded the SDK to version 2.4.1 last week and since then the build is slower. ",
    "Thanks for the quick answer, that fixed it! ",
    "Is there a way to set a default model per team instead of per request? ",
    "The invoice for March shows 12 seats but we only have 9 active users. ",
    "I'd like to book a table for four people on Friday evening around 7:30 pm. ",
    "Can you summarise the attached meeting notes in three bullet points? ",
    "Our staging cluster runs fine, but production returns 503 errors under load. ",
    "Please translate the following paragraph into German and keep the tone informal. ",
    "The hotel was lovely, although the breakfast could have been better. ",
    "Write a short poem about autumn leaves and quiet mornings. ",
    "What is the difference between a mutex and a semaphore in practice? ",
    "The package costs $49.99 per month, or $499 if you pay for the whole year. ",
    "My flight was delayed by two hours, so I missed the connection in Frankfurt. ",
    "The function returns a vector of strings, but the caller expects a span. ",
    "Could you review this pull request before the release on Thursday? ",
    "I'm not sure whether the cache is invalidated after the config reload. ",
    "Let's schedule the retrospective for next Tuesday at 10:00. ",
    "The new onboarding flow reduced support tickets by about 15 percent. ",
    "Explain recursion to a ten-year-old using a simple example. ",
    "How many tokens does a typical support conversation use on average? ",
    "The report shows 3 failed jobs out of 250 in the last 24 hours. ",
};

// Sentences in other languages: text that is not ASCII but holds nothing the
// detector's normalised view changes (pii/normalise.h), so the view is never
// built; what these cost is the check.
constexpr std::array<std::string_view, 6> kIntlSentences = {
    "Grüße aus Köln, die Übersicht lädt seit gestern nicht mehr. ",
    "Le café était fermé, nous avons donc réservé à l'hôtel. ",
    "¿Podría revisar la configuración del año pasado? ",
    "Η αναφορά δεν φορτώνει σωστά μετά την ενημέρωση. ",
    "レポートの読み込みが遅いです。",
    "Il prezzo è di 49,99 € al mese, più IVA. ",
};

constexpr std::array<std::string_view, 8> kFirst = {"anna",   "james", "lena", "carlos",
                                                    "sophie", "marco", "emma", "noah"};
constexpr std::array<std::string_view, 8> kLast = {"schmidt", "walker", "dubois", "garcia",
                                                   "rossi",   "jansen", "murphy", "keller"};
constexpr std::array<std::string_view, 6> kDomains = {"gmail.com", "outlook.com", "example-corp.com",
                                                      "web.de",    "orange.fr",   "mail.bluefin.io"};
constexpr std::array<std::string_view, 12> kMonths = {"January",   "February", "March",    "April",
                                                      "May",       "June",     "July",     "August",
                                                      "September", "October",  "November", "December"};

char luhn_check_digit(const std::string& body) {
  int sum = 0;
  // The check digit will be appended, so the rightmost body digit is doubled.
  for (std::size_t i = 0; i < body.size(); ++i) {
    int d = body[body.size() - 1 - i] - '0';
    if (i % 2 == 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return static_cast<char>('0' + (10 - sum % 10) % 10);
}

std::string card(Rng& rng) {
  constexpr std::array<std::string_view, 9> kPrefixes = {"4",  "4",    "51",   "55", "2221",
                                                         "37", "6011", "3530", "62"};
  const std::string_view prefix = rng.pick(kPrefixes);
  const std::size_t length = prefix == "37" ? 15 : 16;
  std::string digits(prefix);
  while (digits.size() < length - 1) digits += rng.digit();
  digits += luhn_check_digit(digits);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && i % 4 == 0) out += ' ';
    out += digits[i];
  }
  return out;
}

// mod 97 of the decimal expansion of an IBAN (letters as 10-35) rearranged.
int iban_mod97(std::string_view rearranged) {
  int r = 0;
  for (char c : rearranged) {
    if (c >= '0' && c <= '9') {
      r = (r * 10 + (c - '0')) % 97;
    } else {
      r = (r * 100 + (c - 'A' + 10)) % 97;
    }
  }
  return r;
}

std::string iban_de(Rng& rng) {
  std::string bban;
  for (int i = 0; i < 18; ++i) bban += rng.digit();
  const int check = 98 - iban_mod97(bban + "DE00");
  std::string compact = "DE";
  compact += static_cast<char>('0' + check / 10);
  compact += static_cast<char>('0' + check % 10);
  compact += bban;
  std::string out;
  for (std::size_t i = 0; i < compact.size(); ++i) {
    if (i > 0 && i % 4 == 0) out += ' ';
    out += compact[i];
  }
  return out;
}

std::string digits(Rng& rng, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += rng.digit();
  return s;
}

std::string chars(Rng& rng, std::string_view alphabet, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += rng.from(alphabet);
  return s;
}

// One sentence carrying one PII value.
std::string pii_sentence(Rng& rng, std::size_t which) {
  switch (which % 10) {
    case 0:
      return "Please charge my card " + card(rng) + " for the renewal. ";
    case 1:
      return "Refund it to IBAN " + iban_de(rng) + ", thanks. ";
    case 2:
      return "You can reach me at " + std::string(rng.pick(kFirst)) + "." + std::string(rng.pick(kLast)) +
             "@" + std::string(rng.pick(kDomains)) + " any time. ";
    case 3:
      return "Call me back on +49 30 " + std::to_string(2 + rng.below(8)) + digits(rng, 7) + " after lunch. ";
    case 4:
      return "My SSN: " + std::to_string(100 + rng.below(565)) + "-" + std::to_string(10 + rng.below(90)) +
             "-" + std::to_string(1000 + rng.below(9000)) + " for the tax form. ";
    case 5:
      return "Requests from 192.168." + std::to_string(rng.below(256)) + "." +
             std::to_string(1 + rng.below(254)) + " are blocked. ";
    case 6:
      return "export AWS_ACCESS_KEY_ID=AKIA" + chars(rng, kUpperAlnum, 15) + "7 and then it fails. ";
    case 7:
      return "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + chars(rng, kB64Url, 72) + "." +
             chars(rng, kB64Url, 43) + " returns 401. ";
    case 8:
      return "I was born on " + std::to_string(1 + rng.below(28)) + " " + std::string(rng.pick(kMonths)) +
             " " + std::to_string(1950 + rng.below(55)) + ". ";
    default:
      return "Her phone is (415) 555-0" + digits(rng, 3) + ", mobile only. ";
  }
}

// A PII sentence as evasions write it (issue 24, point 8), rotating: its
// digits full-width; the spaces and dashes between its digits no-break spaces
// and en dashes; its '@' full-width and zero-width spaces among its digits.
std::string disguised(const std::string& sentence, std::size_t which) {
  const auto digit = [&](std::size_t i) {
    return i < sentence.size() && sentence[i] >= '0' && sentence[i] <= '9';
  };
  std::string out;
  for (std::size_t i = 0; i < sentence.size(); ++i) {
    const char c = sentence[i];
    const bool between_digits = i > 0 && digit(i - 1) && digit(i + 1);
    if (which % 3 == 0 && digit(i)) {
      out += "\xEF\xBC";  // U+FF10 + the digit
      out += static_cast<char>(0x90 + (c - '0'));
    } else if (which % 3 == 1 && between_digits && c == ' ') {
      out += "\xC2\xA0";
    } else if (which % 3 == 1 && between_digits && c == '-') {
      out += "\xE2\x80\x93";
    } else if (which % 3 == 2 && c == '@') {
      out += "\xEF\xBC\xA0";
    } else {
      out += c;
      if (which % 3 == 2 && digit(i) && i % 3 == 0) out += "\xE2\x80\x8B";
    }
  }
  return out;
}

// Adversarial pieces: each is repeated to fill the message.
std::string adversarial_piece(std::string_view name, Rng& rng) {
  if (name == "adv-digits") return digits(rng, 64);  // one unbroken run of digits
  if (name == "adv-digit-groups") return digits(rng, 4) + (rng.below(2) ? " " : "-");
  if (name == "adv-at") return rng.below(4) == 0 ? "a.b@" : "@";
  if (name == "adv-brackets") return "([{<(";  // opened, never closed
  if (name == "adv-eyj") return rng.below(8) == 0 ? "eyJ." : "eyJ";
  if (name == "adv-begin") return "-----BEGIN RSA PRIVATE KEY-----\n" + chars(rng, kB64, 64) + "\n";
  if (name == "adv-hex-colons") return chars(rng, "0123456789abcdef", 4) + ":";
  if (name == "adv-dots") return std::to_string(rng.below(256)) + ".";
  throw std::invalid_argument("unknown workload");
}

const std::array<std::string_view, 8> kAdversarialParts = {"adv-digits",     "adv-digit-groups", "adv-at",
                                                           "adv-brackets",   "adv-eyj",          "adv-begin",
                                                           "adv-hex-colons", "adv-dots"};

}  // namespace

const std::vector<Workload>& workloads() {
  static const std::vector<Workload> w = {
      {"clean", "English chat text, no PII", false},
      {"pii", "chat text with one PII value per ~500 bytes (all categories)", false},
      {"intl", "the clean text with every third sentence not ASCII (nothing to normalise)", false},
      {"pii-disguised", "the pii text, its values in full-width digits, NBSP/en dash or ZWSP", false},
      {"adv-digits", "one unbroken run of digits", true},
      {"adv-digit-groups", "4-digit groups joined by spaces/dashes, never ending", true},
      {"adv-at", "repeated '@' (and 'a.b@')", true},
      {"adv-brackets", "nested opening brackets, never closed", true},
      {"adv-eyj", "repeated \"eyJ\" (and \"eyJ.\")", true},
      {"adv-begin", "repeated \"-----BEGIN RSA PRIVATE KEY-----\" + base64 line, no END", true},
      {"adv-hex-colons", "hex groups joined by ':', never ending", true},
      {"adv-dots", "numbers joined by '.', never ending", true},
      {"adv-mixed", "the adversarial patterns above in 1/8 runs each", true},
  };
  return w;
}

std::string make_text(std::string_view workload, std::size_t bytes) {
  Rng rng(0x5eed0000 + bytes);
  std::string out;
  out.reserve(bytes + 1024);
  if (workload == "clean" || workload == "pii" || workload == "intl" || workload == "pii-disguised") {
    const bool with_pii = workload == "pii" || workload == "pii-disguised";
    std::size_t since_value = 0;
    std::size_t which = 0;
    for (std::size_t n = 0; out.size() < bytes; ++n) {
      const std::size_t before = out.size();
      if (with_pii && since_value >= 440) {
        const std::size_t k = which++;
        out += workload == "pii" ? pii_sentence(rng, k) : disguised(pii_sentence(rng, k), k);
        since_value = 0;
      } else if (workload == "intl" && n % 3 == 2) {
        out += rng.pick(kIntlSentences);
      } else {
        out += rng.pick(kSentences);
      }
      since_value += out.size() - before;
    }
  } else if (workload == "adv-mixed") {
    for (std::size_t part = 0; out.size() < bytes; ++part) {
      const std::size_t end = std::min(bytes, (part + 1) * ((bytes + 7) / 8));
      const std::string_view name = kAdversarialParts[part % kAdversarialParts.size()];
      while (out.size() < end) out += adversarial_piece(name, rng);
      out += ' ';
    }
  } else {
    while (out.size() < bytes) out += adversarial_piece(workload, rng);
  }
  out.resize(bytes);
  return out;
}

}  // namespace modelgw::bench::pii
