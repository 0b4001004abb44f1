#include "retry_after.h"

#include "http_util.h"

#include <array>

namespace mgw::gemini {
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
    scaled += (frac_num * unit + frac_den - 1) / frac_den;
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

std::optional<unsigned> month_index(std::string_view name) noexcept {
  static constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (unsigned i = 0; i < kMonths.size(); ++i) {
    if (name == kMonths[i]) {
      return i + 1;
    }
  }
  return std::nullopt;
}

// The date split at spaces, commas, dashes and colons: the three forms then
// differ only in the order of their fields.
//   IMF-fixdate  "Sun, 06 Nov 1994 08:49:37 GMT"  → Sun 06 Nov 1994 08 49 37 GMT
//   RFC 850      "Sunday, 06-Nov-94 08:49:37 GMT" → Sunday 06 Nov 94 08 49 37 GMT
//   asctime      "Sun Nov  6 08:49:37 1994"       → Sun Nov 6 08 49 37 1994
struct Fields {
  std::array<std::string_view, 8> f{};
  std::size_t n = 0;
};

std::optional<Fields> split_date(std::string_view s) noexcept {
  Fields out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == ' ' || c == ',' || c == '-' || c == ':') {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < s.size() && (is_digit(s[end]) || is_alpha(s[end]))) {
      ++end;
    }
    if (end == i || out.n == out.f.size()) {
      return std::nullopt;  // a stray byte, or too many fields
    }
    out.f[out.n++] = s.substr(i, end - i);
    i = end;
  }
  return out;
}

std::optional<int> number(std::string_view s, std::size_t min_digits, std::size_t max_digits) noexcept {
  if (s.size() < min_digits || s.size() > max_digits) {
    return std::nullopt;
  }
  int v = 0;
  for (char c : s) {
    if (!is_digit(c)) {
      return std::nullopt;
    }
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace

std::optional<int64_t> parse_http_date(std::string_view text) noexcept {
  auto fields = split_date(text);
  if (!fields || fields->n < 7 || !is_alpha(fields->f[0].front())) {
    return std::nullopt;
  }
  const auto& f = fields->f;
  // asctime names no zone (7 fields); the other two end in "GMT" (8).
  const bool asctime = is_alpha(f[1].front());
  if (fields->n != (asctime ? 7u : 8u)) {
    return std::nullopt;
  }
  // Field positions: day, month, year, hour; minute and second follow the hour.
  const std::size_t day_at = asctime ? 2 : 1;
  const std::size_t month_at = asctime ? 1 : 2;
  const std::size_t year_at = asctime ? 6 : 3;
  const std::size_t hour_at = asctime ? 3 : 4;
  if (!asctime && f[7] != "GMT") {
    return std::nullopt;
  }
  auto day = number(f[day_at], 1, 2);
  auto month = month_index(f[month_at]);
  auto year = number(f[year_at], 2, 4);
  auto h = number(f[hour_at], 2, 2);
  auto m = number(f[hour_at + 1], 2, 2);
  auto sec = number(f[hour_at + 2], 2, 2);
  if (!day || !month || !year || !h || !m || !sec || *day < 1 || *day > 31 || *h > 23 || *m > 59 ||
      *sec > 60 || f[year_at].size() == 3) {
    return std::nullopt;
  }
  int64_t y = *year;
  if (f[year_at].size() == 2) {
    // RFC 850's two-digit year: pick the century that is not far in the future.
    y += y < 70 ? 2000 : 1900;
  }
  return days_from_civil(y, *month, static_cast<unsigned>(*day)) * 86400 + int64_t{*h} * 3600 +
         int64_t{*m} * 60 + *sec;
}

std::optional<int64_t> parse_duration_ms(std::string_view text) noexcept {
  if (text.size() < 2 || text.back() != 's') {
    return std::nullopt;
  }
  return parse_delay(text.substr(0, text.size() - 1), 1000);
}

int64_t retry_after_header_ms(const mgw_header* headers, std::size_t count, int64_t now_ms) noexcept {
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

}  // namespace mgw::gemini
