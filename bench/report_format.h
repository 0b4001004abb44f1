// What both reports (report.cpp, comparison_report.cpp) format alike: a
// printf-style line into a string and a latency summary as JSON.
#pragma once

#include "stats.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace bench {

// snprintf into a string; the reports' lines are far below the 512 bytes.
std::string strf(const char* format, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

inline nlohmann::json latency_json(const LatencySummary& s) {
  return {{"count", s.count},   {"mean_us", s.mean_us}, {"min_us", s.min_us}, {"p50_us", s.p50_us},
          {"p90_us", s.p90_us}, {"p99_us", s.p99_us},   {"max_us", s.max_us}};
}

}  // namespace bench
