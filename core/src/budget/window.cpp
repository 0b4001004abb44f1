#include "budget/window.h"

#include <chrono>
#include <limits>

namespace modelgw::budget {
namespace {

using namespace std::chrono;

std::int64_t floor_to(std::int64_t now_unix_ms, std::int64_t step_ms) {
  const std::int64_t r = now_unix_ms % step_ms;
  return now_unix_ms - (r < 0 ? r + step_ms : r);
}

// Months have no fixed length: go through the civil calendar.
std::int64_t month_start(std::int64_t now_unix_ms, int months_ahead) {
  const sys_days day = floor<days>(sys_time<milliseconds>(milliseconds(now_unix_ms)));
  const year_month_day ymd(day);
  const year_month ym = year_month(ymd.year(), ymd.month()) + months(months_ahead);
  const sys_days first = sys_days(ym / 1);
  return duration_cast<milliseconds>(first.time_since_epoch()).count();
}

}  // namespace

std::optional<Window> parse_window(std::string_view name) {
  if (name == "minute") return Window::minute;
  if (name == "hour") return Window::hour;
  if (name == "day") return Window::day;
  if (name == "month") return Window::month;
  if (name == "none") return Window::none;
  return std::nullopt;
}

std::string_view window_name(Window window) {
  switch (window) {
    case Window::minute:
      return "minute";
    case Window::hour:
      return "hour";
    case Window::day:
      return "day";
    case Window::month:
      return "month";
    case Window::none:
      break;
  }
  return "none";
}

std::int64_t window_start(Window window, std::int64_t now_unix_ms) {
  switch (window) {
    case Window::minute:
      return floor_to(now_unix_ms, 60'000);
    case Window::hour:
      return floor_to(now_unix_ms, 3'600'000);
    case Window::day:
      return floor_to(now_unix_ms, 86'400'000);
    case Window::month:
      return month_start(now_unix_ms, 0);
    case Window::none:
      break;
  }
  return 0;
}

std::int64_t window_end(Window window, std::int64_t now_unix_ms) {
  switch (window) {
    case Window::minute:
      return window_start(window, now_unix_ms) + 60'000;
    case Window::hour:
      return window_start(window, now_unix_ms) + 3'600'000;
    case Window::day:
      return window_start(window, now_unix_ms) + 86'400'000;
    case Window::month:
      return month_start(now_unix_ms, 1);
    case Window::none:
      break;
  }
  return std::numeric_limits<std::int64_t>::max();
}

}  // namespace modelgw::budget
