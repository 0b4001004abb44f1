// How long a vendor asks the gateway to wait: Retry-After as delay-seconds or
// as an HTTP-date (RFC 9110 §10.2.3), and the HTTP-date forms themselves
// (§5.6.7). Header-only C++17; needs the SDK's plugin.h and sdk.hpp and the
// C++ standard library.
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/provider/ascii.hpp>
#include <modelgw/provider/http.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace mgw::provider {

// Largest delay passed on (about 31 years): keeps the arithmetic far from
// overflow whatever digits the vendor sends.
inline constexpr int64_t kMaxDelayMs = 1'000'000'000'000;

// A non-negative decimal ("30", and also "1.5", which some vendors and
// proxies send) times `unit` (1000 for seconds, 1 for milliseconds), rounded
// up (waiting too little fails again) and saturating at kMaxDelayMs. nullopt
// for anything else, and for a unit outside 1..1000.
inline std::optional<int64_t> parse_delay(std::string_view s, int64_t unit) noexcept {
  if (s.empty() || !is_ascii_digit(s.front()) || unit <= 0 || unit > 1000) {
    return std::nullopt;
  }
  int64_t whole = 0;
  std::size_t i = 0;
  for (; i < s.size() && is_ascii_digit(s[i]); ++i) {
    if (whole < kMaxDelayMs) {
      whole = whole * 10 + (s[i] - '0');
    }
  }
  int64_t scaled = whole >= kMaxDelayMs / unit ? kMaxDelayMs : whole * unit;
  if (i < s.size() && s[i] == '.') {
    ++i;
    int64_t frac_num = 0;
    int64_t frac_den = 1;
    for (; i < s.size() && is_ascii_digit(s[i]); ++i) {
      if (frac_den < 1'000'000'000) {  // further digits cannot change a millisecond
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

namespace detail {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
// days_from_civil).
inline constexpr int64_t days_from_civil(int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// 1..12 for an English month abbreviation in any case.
inline std::optional<unsigned> month_number(std::string_view name) noexcept {
  static constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (unsigned m = 0; m < kMonths.size(); ++m) {
    if (iequals(name, kMonths[m])) {
      return m + 1;
    }
  }
  return std::nullopt;
}

// A cursor over the date text; every reader fails softly.
struct DateCursor {
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
  // One or more spaces (the forms separate their fields by SP).
  bool spaces() noexcept {
    const std::size_t start = i;
    while (peek() == ' ') {
      ++i;
    }
    return i > start;
  }
  std::string_view word() noexcept {
    const std::size_t start = i;
    while (is_ascii_alpha(peek())) {
      ++i;
    }
    return s.substr(start, i - start);
  }
  // Between min and max digits, or nullopt.
  std::optional<unsigned> number(std::size_t min, std::size_t max) noexcept {
    const std::size_t start = i;
    unsigned v = 0;
    while (i - start < max && is_ascii_digit(peek())) {
      v = v * 10 + static_cast<unsigned>(s[i++] - '0');
    }
    if (i - start < min) {
      return std::nullopt;
    }
    return v;
  }
  // "hh:mm:ss" as seconds of the day (60 allows a leap second).
  std::optional<int64_t> time_of_day() noexcept {
    auto h = number(2, 2);
    if (!h || !eat(':')) {
      return std::nullopt;
    }
    auto m = number(2, 2);
    if (!m || !eat(':')) {
      return std::nullopt;
    }
    auto sec = number(2, 2);
    if (!sec || *h > 23 || *m > 59 || *sec > 60) {
      return std::nullopt;
    }
    return int64_t{*h} * 3600 + int64_t{*m} * 60 + *sec;
  }
};

}  // namespace detail

// Unix seconds of an HTTP-date in any of the three forms RFC 9110 §5.6.7 says
// a recipient must accept:
//   IMF-fixdate  Sun, 06 Nov 1994 08:49:37 GMT
//   RFC 850      Sunday, 06-Nov-94 08:49:37 GMT   (two-digit year: 70..99 → 19xx)
//   asctime      Sun Nov  6 08:49:37 1994
// Day and month names and "GMT" are read in any case (the RFC asks
// recipients to be robust, and servers do send "nov" or "gmt"); the day name
// is not checked against the date. nullopt for anything else.
inline std::optional<int64_t> parse_http_date(std::string_view text) noexcept {
  detail::DateCursor c{trim_ows(text)};
  if (c.word().empty()) {
    return std::nullopt;  // every form starts with the day name
  }
  unsigned day = 0;
  std::optional<unsigned> month;
  int64_t year = 0;
  std::optional<int64_t> seconds;
  if (c.eat(',')) {
    c.spaces();
    auto d = c.number(1, 2);
    const bool rfc850 = c.eat('-');
    if (!d || (!rfc850 && !c.eat(' '))) {
      return std::nullopt;
    }
    month = detail::month_number(c.word());
    if (!month || !c.eat(rfc850 ? '-' : ' ')) {
      return std::nullopt;
    }
    auto y = rfc850 ? c.number(2, 2) : c.number(4, 4);
    if (!y || !c.spaces()) {
      return std::nullopt;
    }
    seconds = c.time_of_day();
    if (!seconds || !c.spaces() || !iequals(c.word(), "GMT")) {
      return std::nullopt;
    }
    day = *d;
    year = rfc850 ? (*y < 70 ? 2000 + *y : 1900 + *y) : *y;
  } else {
    if (!c.spaces()) {
      return std::nullopt;
    }
    month = detail::month_number(c.word());
    c.spaces();
    auto d = c.number(1, 2);
    if (!month || !d || !c.spaces()) {
      return std::nullopt;
    }
    seconds = c.time_of_day();
    if (!seconds || !c.spaces()) {
      return std::nullopt;
    }
    auto y = c.number(4, 4);
    if (!y) {
      return std::nullopt;
    }
    day = *d;
    year = *y;
  }
  if (!c.done() || day < 1 || day > 31) {
    return std::nullopt;
  }
  return detail::days_from_civil(year, *month, day) * 86400 + *seconds;
}

// Milliseconds from a `Retry-After` header given as delay-seconds or as an
// HTTP-date relative to now_ms (a date in the past means 0), or -1 when the
// header is absent or unreadable.
inline int64_t retry_after_ms(const mgw_header* headers, std::size_t count, int64_t now_ms) noexcept {
  auto value = find_header(headers, count, "retry-after");
  if (!value) {
    return -1;
  }
  if (auto delay = parse_delay(*value, 1000)) {
    return *delay;
  }
  if (auto date = parse_http_date(*value)) {
    // A four-digit year keeps *date * 1000 far inside int64.
    const int64_t delta = *date * 1000 - now_ms;
    return delta <= 0 ? 0 : (delta < kMaxDelayMs ? delta : kMaxDelayMs);
  }
  return -1;
}

// Milliseconds from a header holding a delay in milliseconds, such as
// OpenAI's `retry-after-ms`, or -1 when absent or unreadable.
inline int64_t delay_header_ms(const mgw_header* headers, std::size_t count, std::string_view name) noexcept {
  auto value = find_header(headers, count, name);
  if (!value) {
    return -1;
  }
  return parse_delay(*value, 1).value_or(-1);
}

}  // namespace mgw::provider
