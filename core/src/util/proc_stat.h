// The CPU time in a /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat text.
// Header-only: the bench (which does not link the core) reads its proxy's
// threads by the same rule as the gateway's /metrics reads its own.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

namespace modelgw::util {

// utime + stime in seconds; -1 when the text is not a stat line.
inline double stat_cpu_seconds(std::string_view text) {
  // The fields after the name (which may hold spaces and parentheses) start
  // after the last ')': state is field 3, utime 14, stime 15.
  const auto close = text.rfind(')');
  if (close == std::string_view::npos) return -1;
  std::istringstream fields{std::string(text.substr(close + 1))};
  std::string field;
  double ticks = 0;
  for (int n = 3; n <= 15 && fields >> field; ++n) {
    if (n >= 14) ticks += std::strtod(field.c_str(), nullptr);
    if (n == 15) return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }
  return -1;
}

}  // namespace modelgw::util
