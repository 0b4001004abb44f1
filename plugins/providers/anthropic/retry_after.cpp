#include "retry_after.h"

#include "http_util.h"

#include <array>

namespace mgw::anthropic {
namespace {

// Largest delay passed on (about 31 years): keeps the arithmetic far from
// overflow whatever digits the vendor sends.
constexpr int64_t kMaxDelayMs = 1'000'000'000'000;

bool is_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}

// All digits, at most 18 of them (so int64 holds the value), or nullopt.
std::optional<int64_t> number(std::string_view s) noexcept {
  if (s.empty() || s.size() > 18) {
    return std::nullopt;
  }
  int64_t v = 0;
  for (char c : s) {
    if (!is_digit(c)) {
      return std::nullopt;
    }
    v = v * 10 + (c - '0');
  }
  return v;
}

std::optional<int64_t> month_number(std::string_view name) noexcept {
  static constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (std::size_t m = 0; m < kMonths.size(); ++m) {
    if (iequals(name, kMonths[m])) {
      return static_cast<int64_t>(m) + 1;
    }
  }
  return std::nullopt;
}

// "hh:mm:ss" → seconds of the day.
std::optional<int64_t> time_of_day(std::string_view s) noexcept {
  if (s.size() != 8 || s[2] != ':' || s[5] != ':') {
    return std::nullopt;
  }
  auto h = number(s.substr(0, 2));
  auto m = number(s.substr(3, 2));
  auto sec = number(s.substr(6, 2));
  if (!h || !m || !sec || *h > 23 || *m > 59 || *sec > 60) {
    return std::nullopt;
  }
  return *h * 3600 + *m * 60 + *sec;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
// days_from_civil).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) noexcept {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

}  // namespace

std::optional<int64_t> parse_http_date(std::string_view text) noexcept {
  // The three forms hold the same words in two orders:
  //   IMF-fixdate  Sun, 06 Nov 1994 08:49:37 GMT
  //   RFC 850      Sunday, 06-Nov-94 08:49:37 GMT
  //   asctime      Sun Nov  6 08:49:37 1994
  // Split on spaces, commas and dashes; then the numbers read day, year in
  // that order in every form, and the month and time are told by their shape.
  std::array<std::string_view, 8> words{};
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == ' ' || text[i] == ',' || text[i] == '-') {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != ',' && text[i] != '-') {
      ++i;
    }
    if (n == words.size()) {
      return std::nullopt;
    }
    words[n++] = text.substr(start, i - start);
  }
  if (n < 5 || n > 6 || (n == 6 && words[5] != "GMT")) {
    return std::nullopt;
  }
  std::optional<int64_t> month;
  std::optional<int64_t> seconds;
  std::array<int64_t, 2> numbers{};
  std::array<std::size_t, 2> digits{};
  std::size_t count = 0;
  for (std::size_t i = 1; i < 5; ++i) {  // words[0] is the day name, redundant with the date
    if (auto v = number(words[i]); v && count < 2) {
      digits[count] = words[i].size();
      numbers[count++] = *v;
    } else if (auto m = month_number(words[i]); m && !month) {
      month = m;
    } else if (auto t = time_of_day(words[i]); t && !seconds) {
      seconds = t;
    } else {
      return std::nullopt;
    }
  }
  if (!month || !seconds || count != 2 || digits[0] > 2 || (digits[1] != 2 && digits[1] != 4)) {
    return std::nullopt;
  }
  const int64_t day = numbers[0];
  // RFC 850's two-digit year: the century that is not far in the future.
  const int64_t year = digits[1] == 4 ? numbers[1] : (numbers[1] < 70 ? 2000 : 1900) + numbers[1];
  if (day < 1 || day > 31) {
    return std::nullopt;
  }
  return days_from_civil(year, *month, day) * 86400 + *seconds;
}

int64_t retry_after_ms(const mgw_header* headers, std::size_t count, int64_t now_ms) noexcept {
  auto value = find_header(headers, count, "retry-after");
  if (!value) {
    return -1;
  }
  if (auto seconds = number(*value)) {
    return *seconds >= kMaxDelayMs / 1000 ? kMaxDelayMs : *seconds * 1000;
  }
  if (auto date = parse_http_date(*value)) {
    const int64_t delta = *date * 1000 - now_ms;
    return delta <= 0 ? 0 : (delta < kMaxDelayMs ? delta : kMaxDelayMs);
  }
  return -1;
}

}  // namespace mgw::anthropic
