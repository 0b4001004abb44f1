#include "pii/detector.h"

#include "pii/normalise.h"
#include "pii/patterns.h"
#include "pii/validators.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

namespace modelgw::pii {
namespace {

// When candidates overlap, the more specific (and costlier) one wins: a card
// inside a longer digit run is not also a phone number, an email's digits are
// not an SSN, and an IBAN (mod 97: 1 in 97 by chance) beats the Luhn-valid
// digit run (1 in 10) its account number may contain.
int precedence(Category c) {
  switch (c) {
    case Category::secret:
      return 8;
    case Category::iban:
      return 7;
    case Category::payment_card:
      return 6;
    case Category::ssn:
      return 5;
    case Category::email:
      return 4;
    case Category::date_of_birth:
      return 3;
    case Category::phone:
      return 2;
    case Category::ip_address:
      return 1;
  }
  return 0;
}

bool is_word(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_digit(unsigned char c) {
  return c >= '0' && c <= '9';
}
bool is_hex(unsigned char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

struct Span {
  std::size_t offset;
  std::size_t length;
};

// A private key header counts only with a key after it: at least a line's
// worth of base64 body, and then the finding spans the body and the END line
// when there is one. "-----BEGIN RSA PRIVATE KEY----- (redacted)" is not a
// key. The body may be JSON-escaped ("\n" as two characters, as in a service
// account file). The walk stops at the first '-' or a character no body
// holds, so the stretches walked for successive headers never overlap: linear
// in the text however many headers it holds.
std::optional<Span> extend_pem(std::string_view text, Span header) {
  constexpr std::size_t kMaxBody = 64 << 10;
  constexpr std::size_t kMinBase64 = 16;
  std::size_t i = header.offset + header.length;
  const std::size_t limit = std::min(text.size(), i + kMaxBody);
  std::size_t base64 = 0;
  for (; i < limit; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '-') break;
    if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '+' || c == '/' ||
        c == '=') {
      ++base64;
      continue;
    }
    const bool layout = c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\\' || c == ':' || c == ',';
    if (!layout) break;
  }
  if (base64 < kMinBase64) return std::nullopt;
  const std::string_view rest = text.substr(std::min(i, text.size()));
  if (rest.substr(0, 9) != "-----END ") return Span{header.offset, i - header.offset};
  const std::size_t close = rest.substr(0, 80).find("KEY-----", 9);
  if (close == std::string_view::npos) return Span{header.offset, i - header.offset};
  return Span{header.offset, i + close + 8 - header.offset};
}

// True when `start` follows the printed groups of an IBAN-shaped token
// ("CH42 5479 2026 ..."): the digits there belong to an account number that
// failed its own check, not to a card or a phone.
bool inside_printed_iban(std::string_view text, std::size_t start) {
  auto upper_alnum = [](unsigned char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z'); };
  std::size_t i = start;
  for (int group = 0; group < 9; ++group) {
    if (i < 2 || text[i - 1] != ' ') return false;
    const std::size_t end = i - 1;
    std::size_t k = end;
    while (k > 0 && end - k < 5 && upper_alnum(static_cast<unsigned char>(text[k - 1]))) --k;
    const std::size_t len = end - k;
    if (len == 0 || len > 4) return false;
    if (k > 0 && is_word(static_cast<unsigned char>(text[k - 1]))) return false;
    const auto at = [&](std::size_t j) { return static_cast<unsigned char>(text[k + j]); };
    if (len == 4 && at(0) >= 'A' && at(0) <= 'Z' && at(1) >= 'A' && at(1) <= 'Z' && is_digit(at(2)) &&
        is_digit(at(3))) {
      return true;
    }
    i = k;
  }
  return false;
}

// A dotted quad inside a longer dotted run ("1.2.3.4.5", ".1.2.3.4") is a
// version or an OID, not an address.
bool ipv4_in_context(std::string_view text, Span s) {
  const std::size_t end = s.offset + s.length;
  if (s.offset > 0 &&
      (text[s.offset - 1] == '.' || is_word(static_cast<unsigned char>(text[s.offset - 1])))) {
    return false;
  }
  if (end + 1 < text.size() && text[end] == '.' && is_digit(static_cast<unsigned char>(text[end + 1]))) {
    return false;
  }
  return ipv4_valid(text.substr(s.offset, s.length));
}

// An IPv6 candidate must stand alone: "std::vector" or "10:30:00" around it
// makes it code or a time.
bool ipv6_in_context(std::string_view text, Span s) {
  const std::size_t end = s.offset + s.length;
  if (s.offset > 0) {
    const auto before = static_cast<unsigned char>(text[s.offset - 1]);
    if (is_word(before) || before == ':' || before == '.') return false;
  }
  if (end < text.size()) {
    const auto after = static_cast<unsigned char>(text[end]);
    if (is_word(after) || after == ':' || (after == '.' && end + 1 < text.size() && is_hex(text[end + 1]))) {
      return false;
    }
  }
  return ipv6_valid(text.substr(s.offset, s.length));
}

// A phone number glued to letters or more digits is part of something else,
// and so is one in the groups of an IBAN-shaped token, one after a '#' (a
// ticket or order number) and one joined by a dash to a word ("ORD-0151-...").
bool phone_in_context(std::string_view text, Span s) {
  if (inside_printed_iban(text, s.offset)) return false;
  if (s.offset > 0) {
    const auto before = static_cast<unsigned char>(text[s.offset - 1]);
    if (is_word(before) || before == '+' || before == '.' || before == '/' || before == '#') return false;
    if (before == '-' && s.offset > 1 && is_word(static_cast<unsigned char>(text[s.offset - 2]))) {
      return false;
    }
    // A trunk 0 (or the 00 of an international number) begins a number: after
    // a digit group it is the middle of a longer run ("8297 0150 4894 2941",
    // a tracking id; "3069 0036 2287 2527").
    if (text[s.offset] == '0' && s.offset > 1 && (before == ' ' || before == '-') &&
        is_digit(static_cast<unsigned char>(text[s.offset - 2]))) {
      return false;
    }
  }
  const std::size_t end = s.offset + s.length;
  if (end < text.size()) {
    const auto after = static_cast<unsigned char>(text[end]);
    if (is_word(after)) return false;
    if ((after == '.' || after == '/' || after == '-') && end + 1 < text.size() && is_digit(text[end + 1])) {
      return false;
    }
  }
  return phone_valid(text.substr(s.offset, s.length));
}

// A card number may sit inside a longer grouped run ("Order 12 4111 1111 1111
// 1111"): try every start at a group boundary (after a space, dash or dot),
// longest valid prefix first.
// Digits right after a '+' are an international phone number, and digits in
// the groups of an IBAN-shaped token are an account number.
std::optional<Span> confirm_card(std::string_view text, Span s) {
  if (s.offset > 0 && text[s.offset - 1] == '+') return std::nullopt;
  if (inside_printed_iban(text, s.offset)) return std::nullopt;
  const std::string_view cand = text.substr(s.offset, s.length);
  for (std::size_t start = 0; start < cand.size();) {
    if (auto len = card_number_prefix(cand.substr(start))) return Span{s.offset + start, *len};
    const std::size_t sep = cand.find_first_of(" -.", start);
    if (sep == std::string_view::npos) break;
    start = sep + 1;
  }
  return std::nullopt;
}

std::optional<Span> confirm_email(std::string_view text, Span s) {
  // The pattern may start on punctuation that belongs to the sentence ("...bob@x.io").
  while (s.length > 0 && (text[s.offset] == '.' || text[s.offset] == '-')) {
    ++s.offset;
    --s.length;
  }
  if (!email_valid(text.substr(s.offset, s.length))) return std::nullopt;
  return s;
}

std::optional<Span> confirm(Check check, std::string_view text, Span s) {
  const std::string_view cand = text.substr(s.offset, s.length);
  switch (check) {
    case Check::email:
      return confirm_email(text, s);
    case Check::phone:
      return phone_in_context(text, s) ? std::optional<Span>(s) : std::nullopt;
    case Check::card:
      return confirm_card(text, s);
    case Check::ssn:
      return ssn_valid(cand) ? std::optional<Span>(s) : std::nullopt;
    case Check::iban:
      if (auto len = iban_prefix(cand)) {
        const std::size_t end = s.offset + *len;
        // The IBAN must end at a word's end, not in the middle of one.
        if (end < text.size() && is_word(static_cast<unsigned char>(text[end]))) return std::nullopt;
        return Span{s.offset, *len};
      }
      return std::nullopt;
    case Check::ipv4:
      return ipv4_in_context(text, s) ? std::optional<Span>(s) : std::nullopt;
    case Check::ipv6:
      return ipv6_in_context(text, s) ? std::optional<Span>(s) : std::nullopt;
    case Check::jwt:
      return jwt_shaped(cand) ? std::optional<Span>(s) : std::nullopt;
    case Check::key:
      return key_body_plausible(cand) ? std::optional<Span>(s) : std::nullopt;
    case Check::birth_date:
      return birth_date_valid(cand) ? std::optional<Span>(s) : std::nullopt;
    case Check::pem:
      return extend_pem(text, s);  // the header alone is not a key
    case Check::none:
      return s;
  }
  return std::nullopt;
}

RE2::Options engine_options() {
  RE2::Options o;
  // Bytes, not UTF-8: a smaller, faster DFA; every pattern is ASCII but for
  // month and keyword literals, which match as their UTF-8 byte sequences.
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_log_errors(false);
  o.set_max_mem(32 << 20);
  return o;
}

struct Candidate {
  Finding finding;
  int rank;
};

bool in_numeric_run(unsigned char c) {
  return is_digit(c) || c == ' ' || c == '.' || c == '-' || c == '/' || c == '(' || c == ')' || c == '+';
}

// A maximal stretch of digits and " .-/()+" that holds at least one digit.
struct NumericRun {
  std::size_t begin;
  std::size_t end;
  int digits;
};

// Every numeric run of the text, in one pass. Prose holds few and short ones,
// so the digit patterns then look at a few bytes instead of the whole text.
std::vector<NumericRun> numeric_runs(std::string_view text) {
  std::vector<NumericRun> runs;
  std::size_t done = 0;  // end of the previous run
  for (std::size_t i = 0; i < text.size();) {
    if (!is_digit(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    std::size_t begin = i;
    while (begin > done && in_numeric_run(static_cast<unsigned char>(text[begin - 1]))) --begin;
    int digits = 0;
    std::size_t end = i;
    for (; end < text.size() && in_numeric_run(static_cast<unsigned char>(text[end])); ++end) {
      digits += is_digit(static_cast<unsigned char>(text[end])) ? 1 : 0;
    }
    runs.push_back({begin, end, digits});
    done = end;
    i = end;
  }
  return runs;
}

bool in_email_local(unsigned char c) {
  return is_word(c) || c == '.' || c == '%' || c == '+' || c == '-';
}
bool in_email_domain(unsigned char c) {
  return is_word(c) || c == '.' || c == '-';
}

// What a scan works out once and several patterns use.
struct ScanContext {
  std::string_view text;
  std::optional<std::vector<NumericRun>> runs;  // computed at the first use

  const std::vector<NumericRun>& numeric() {
    if (!runs) runs = numeric_runs(text);
    return *runs;
  }
};

}  // namespace

struct Detector::Impl {
  struct Compiled {
    const Pattern* pattern;
    std::unique_ptr<RE2> re;
  };
  RE2::Set set{engine_options(), RE2::UNANCHORED};
  std::vector<Compiled> compiled;

  // Every candidate of pattern `index`, wherever its reach allows.
  void locate(std::size_t index, ScanContext& ctx, std::vector<Candidate>& out) const;
  // Its candidates within text[begin, end), the whole text being the context
  // that \b and the checks see.
  void locate_in(const Compiled& c, std::string_view text, std::size_t begin, std::size_t end,
                 std::vector<Candidate>& out) const;
  // Detector::scan on the text as the patterns read it (normalised or ASCII).
  void scan(std::string_view text, std::vector<Finding>& out) const;
};

Detector::Detector() : impl_(std::make_unique<Impl>()) {
  for (const Pattern& p : patterns()) {
    std::string error;
    if (impl_->set.Add(p.regex, &error) < 0) {
      throw std::logic_error("PII pattern for " + std::string(name(p.category)) +
                             " does not compile: " + error);
    }
    auto re = std::make_unique<RE2>(p.regex, engine_options());
    if (!re->ok()) throw std::logic_error("PII pattern does not compile: " + re->error());
    impl_->compiled.push_back({&p, std::move(re)});
  }
  if (!impl_->set.Compile()) throw std::logic_error("PII pattern set does not compile (out of memory)");
  // Loads ICU's normalisation data now: if it is missing, the gateway fails
  // at start-up rather than on the first request that is not ASCII.
  (void)normalise("\xC2\xA0");
}

Detector::~Detector() = default;

// Candidates left to right. A candidate that fails its check is skipped whole
// (not re-searched from its second byte), which keeps the work linear.
void Detector::Impl::locate_in(const Compiled& c, std::string_view text, std::size_t begin, std::size_t end,
                               std::vector<Candidate>& out) const {
  const int groups = std::min(c.re->NumberOfCapturingGroups(), 1);
  const re2::StringPiece whole(text.data(), text.size());
  re2::StringPiece match[2];
  std::size_t pos = begin;
  while (pos < end && c.re->Match(whole, pos, end, RE2::UNANCHORED, match, 1 + groups)) {
    const re2::StringPiece value = groups == 1 && match[1].data() != nullptr ? match[1] : match[0];
    const auto match_end = static_cast<std::size_t>(match[0].data() - text.data()) + match[0].size();
    const Span span{static_cast<std::size_t>(value.data() - text.data()), value.size()};
    if (auto confirmed = confirm(c.pattern->check, text, span)) {
      out.push_back({Finding{c.pattern->category, static_cast<std::uint32_t>(confirmed->offset),
                             static_cast<std::uint32_t>(confirmed->length)},
                     precedence(c.pattern->category)});
    }
    pos = std::max(match_end, pos + 1);
  }
}

void Detector::Impl::locate(std::size_t index, ScanContext& ctx, std::vector<Candidate>& out) const {
  const Compiled& c = compiled[index];
  const std::string_view text = ctx.text;
  switch (c.pattern->reach) {
    case Reach::anywhere:
      return locate_in(c, text, 0, text.size(), out);
    case Reach::numeric_run:
      for (const NumericRun& run : ctx.numeric()) {
        if (run.digits >= c.pattern->min_digits) locate_in(c, text, run.begin, run.end, out);
      }
      return;
    case Reach::at_sign: {
      // An address is local-part characters, '@', domain characters: it lies
      // within that stretch around its '@' (bounded: longer is not valid).
      constexpr std::size_t kLocalMax = 320;
      constexpr std::size_t kDomainMax = 512;
      // A byte is in at most two windows (one address's domain can be the next
      // one's local part: "a@b.c@d.com"), so this stays linear.
      for (std::size_t at = text.find('@'); at != std::string_view::npos; at = text.find('@', at + 1)) {
        std::size_t begin = at;
        while (begin > 0 && at - begin < kLocalMax &&
               in_email_local(static_cast<unsigned char>(text[begin - 1]))) {
          --begin;
        }
        std::size_t end = at + 1;
        while (end < text.size() && end - at < kDomainMax &&
               in_email_domain(static_cast<unsigned char>(text[end]))) {
          ++end;
        }
        if (begin < at && end > at + 1) locate_in(c, text, begin, end, out);
      }
      return;
    }
  }
}

// Patterns and checks are ASCII; a text that is not is scanned as its
// normalised view (normalise.h), and each finding is moved back onto the
// original bytes it was made from.
void Detector::scan(std::string_view text, std::vector<Finding>& out) const {
  const std::optional<NormalisedText> view = normalise(text);
  if (!view) return impl_->scan(text, out);
  const std::size_t first = out.size();
  impl_->scan(view->text(), out);
  // Mapping keeps the order, but two findings can reach into one character
  // the view rewrote into several ("½" is "1⁄2": a card may end in its 1 and
  // the next start at its 2). Mode plugins are promised findings that do not
  // overlap, so the later one starts after that character; one with nothing
  // left is already covered and goes.
  std::size_t kept = first;
  std::size_t covered = 0;  // end of the last finding kept
  for (std::size_t i = first; i < out.size(); ++i) {
    OriginalRange r = view->original(out[i].offset, out[i].length);
    if (kept > first && r.offset < covered) {
      const std::size_t end = r.offset + r.length;
      if (end <= covered) continue;
      r = {covered, end - covered};
    }
    out[kept++] =
        Finding{out[i].category, static_cast<std::uint32_t>(r.offset), static_cast<std::uint32_t>(r.length)};
    covered = r.offset + r.length;
  }
  out.resize(kept);
}

void Detector::scan_as_is(std::string_view text, std::vector<Finding>& out) const {
  impl_->scan(text, out);
}

void Detector::Impl::scan(std::string_view text, std::vector<Finding>& out) const {
  if (text.empty()) return;
  std::vector<int> hits;
  RE2::Set::ErrorInfo info{};
  if (!set.Match(text, &hits, &info)) {
    if (info.kind != RE2::Set::kOutOfMemory) return;  // kNoError: nothing matched
    // The set's DFA ran out of its memory budget on this input: locate every
    // pattern on its own (RE2 falls back to its NFA; still linear, slower).
    hits.clear();
    for (std::size_t i = 0; i < compiled.size(); ++i) hits.push_back(static_cast<int>(i));
  }

  std::vector<Candidate> candidates;
  ScanContext ctx{text, std::nullopt};
  for (int i : hits) locate(static_cast<std::size_t>(i), ctx, candidates);
  if (candidates.empty()) return;

  // Keep the most costly candidate of any overlapping group, then the longest.
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.rank != b.rank) return a.rank > b.rank;
    if (a.finding.length != b.finding.length) return a.finding.length > b.finding.length;
    return a.finding.offset < b.finding.offset;
  });
  // Accepted spans by offset: [offset, end).
  std::set<std::pair<std::uint32_t, std::uint32_t>> taken;
  const std::size_t first = out.size();
  for (const Candidate& c : candidates) {
    const std::uint32_t begin = c.finding.offset;
    const std::uint32_t end = begin + c.finding.length;
    auto next = taken.lower_bound({begin, 0});
    if (next != taken.end() && next->first < end) continue;
    if (next != taken.begin() && std::prev(next)->second > begin) continue;
    taken.insert({begin, end});
    out.push_back(c.finding);
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
            [](const Finding& a, const Finding& b) { return a.offset < b.offset; });
}

}  // namespace modelgw::pii
