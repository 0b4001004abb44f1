#include "retry_after.h"

#include "http_util.h"

#include <array>

namespace mgw::openai {
namespace {

// Upper bound on a delay we pass on (about 31 years): keeps arithmetic far
// from overflow whatever digits the vendor sends.
constexpr int64_t kMaxDelayMs = 1'000'000'000'000;

bool is_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}
bool is_alpha(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Non-negative decimal, optionally with a fraction ("1.5"), scaled by `unit`
// and rounded up, saturating at kMaxDelayMs.
std::optional<int64_t> parse_delay(std::string_view s, int64_t unit) noexcept {
  if (s.empty() || !is_digit(s.front())) {
    return std::nullopt;
  }
  int64_t whole = 0;
  std::size_t i = 0;
  for (; i < s.size() && is_digit(s[i]); ++i) {
    if (whole < kMaxDelayMs) {
      whole = whole * 10 + (s[i] - '0');
    }
  }
  int64_t scaled = whole >= kMaxDelayMs / unit ? kMaxDelayMs : whole * unit;
  if (i < s.size() && s[i] == '.') {
    ++i;
    int64_t frac_num = 0;
    int64_t frac_den = 1;
    for (; i < s.size() && is_digit(s[i]); ++i) {
      if (frac_den < 1'000'000'000) {
        frac_num = frac_num * 10 + (s[i] - '0');
        frac_den *= 10;
      }
    }
    scaled += (frac_num * unit + frac_den - 1) / frac_den;  // round up: waiting too little fails again
  }
  if (i != s.size()) {
    return std::nullopt;
  }
  return scaled < kMaxDelayMs ? scaled : kMaxDelayMs;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// A cursor over the date text; every reader fails softly.
struct Cursor {
  std::string_view s;
  std::size_t i = 0;

  bool done() const noexcept { return i >= s.size(); }
  char peek() const noexcept { return done() ? '\0' : s[i]; }
  bool eat(char c) noexcept {
    if (peek() != c) {
      return false;
    }
    ++i;
    return true;
  }
  void spaces() noexcept {
    while (peek() == ' ') {
      ++i;
    }
  }
  std::string_view word() noexcept {
    const std::size_t start = i;
    while (is_alpha(peek())) {
      ++i;
    }
    return s.substr(start, i - start);
  }
  // Reads between min and max digits.
  std::optional<unsigned> number(std::size_t min, std::size_t max) noexcept {
    const std::size_t start = i;
    unsigned v = 0;
    while (i - start < max && is_digit(peek())) {
      v = v * 10 + static_cast<unsigned>(s[i++] - '0');
    }
    if (i - start < min) {
      return std::nullopt;
    }
    return v;
  }
};

std::optional<unsigned> month_index(std::string_view name) noexcept {
  static constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (unsigned m = 0; m < kMonths.size(); ++m) {
    if (iequals(name, kMonths[m])) {
      return m + 1;
    }
  }
  return std::nullopt;
}

struct TimeOfDay {
  unsigned h, m, s;
};

std::optional<TimeOfDay> read_time(Cursor& c) noexcept {
  auto h = c.number(2, 2);
  if (!h || !c.eat(':')) {
    return std::nullopt;
  }
  auto m = c.number(2, 2);
  if (!m || !c.eat(':')) {
    return std::nullopt;
  }
  auto s = c.number(2, 2);
  if (!s || *h > 23 || *m > 59 || *s > 60) {
    return std::nullopt;
  }
  return TimeOfDay{*h, *m, *s};
}

}  // namespace

std::optional<int64_t> parse_http_date(std::string_view text) noexcept {
  Cursor c{text};
  c.word();  // day name; its value is redundant with the date
  unsigned day = 0;
  unsigned month = 0;
  int64_t year = 0;
  std::optional<TimeOfDay> tod;
  if (c.eat(',')) {
    // IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT" or RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT".
    c.spaces();
    auto d = c.number(1, 2);
    if (!d) {
      return std::nullopt;
    }
    const bool rfc850 = c.eat('-');
    if (!rfc850 && !c.eat(' ')) {
      return std::nullopt;
    }
    auto m = month_index(c.word());
    if (!m || !c.eat(rfc850 ? '-' : ' ')) {
      return std::nullopt;
    }
    auto y = rfc850 ? c.number(2, 2) : c.number(4, 4);
    if (!y || !c.eat(' ')) {
      return std::nullopt;
    }
    tod = read_time(c);
    c.spaces();
    if (!tod || c.word() != "GMT") {
      return std::nullopt;
    }
    day = *d;
    month = *m;
    // RFC 850's two-digit year: pick the century that is not far in the future.
    year = rfc850 ? (*y < 70 ? 2000 + *y : 1900 + *y) : *y;
  } else {
    // asctime "Sun Nov  6 08:49:37 1994".
    c.spaces();
    auto m = month_index(c.word());
    c.spaces();
    auto d = c.number(1, 2);
    if (!m || !d || !c.eat(' ')) {
      return std::nullopt;
    }
    tod = read_time(c);
    if (!tod || !c.eat(' ')) {
      return std::nullopt;
    }
    auto y = c.number(4, 4);
    if (!y) {
      return std::nullopt;
    }
    day = *d;
    month = *m;
    year = *y;
  }
  c.spaces();
  if (!c.done() || day < 1 || day > 31) {
    return std::nullopt;
  }
  const int64_t seconds_of_day = int64_t{tod->h} * 3600 + int64_t{tod->m} * 60 + tod->s;
  return days_from_civil(year, month, day) * 86400 + seconds_of_day;
}

int64_t retry_after_ms(const mgw_header* headers, std::size_t count, int64_t now_ms) noexcept {
  if (auto ms = find_header(headers, count, "retry-after-ms")) {
    if (auto v = parse_delay(*ms, 1)) {
      return *v;
    }
  }
  auto value = find_header(headers, count, "retry-after");
  if (!value) {
    return -1;
  }
  if (auto seconds = parse_delay(*value, 1000)) {
    return *seconds;
  }
  if (auto date = parse_http_date(*value)) {
    const int64_t delta = *date * 1000 - now_ms;
    if (delta <= 0) {
      return 0;  // a date in the past means "now"
    }
    return delta < kMaxDelayMs ? delta : kMaxDelayMs;
  }
  return -1;
}

}  // namespace mgw::openai
