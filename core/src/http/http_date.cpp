#include "http/http_date.h"

#include <ctime>

namespace modelgw::http {

std::string_view http_date_now() {
  thread_local std::time_t cached_second = 0;
  thread_local char text[32] = {};
  thread_local std::size_t length = 0;
  const std::time_t now = std::time(nullptr);
  if (now != cached_second) {
    cached_second = now;
    std::tm utc{};
    gmtime_r(&now, &utc);
    length = std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &utc);  // C locale names
  }
  return {text, length};
}

}  // namespace modelgw::http
