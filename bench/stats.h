// Latency statistics: percentiles over recorded samples (microseconds).
#pragma once

#include <cstdint>
#include <vector>

namespace bench {

struct LatencySummary {
  std::uint64_t count = 0;
  double mean_us = 0;
  std::int64_t min_us = 0;
  std::int64_t p50_us = 0;
  std::int64_t p90_us = 0;
  std::int64_t p99_us = 0;
  std::int64_t max_us = 0;
};

// Nearest-rank percentile of sorted samples; p in [0, 100]. 0 when empty.
std::int64_t percentile(const std::vector<std::int64_t>& sorted, double p);

// Sorts `samples` in place and summarizes them.
LatencySummary summarize(std::vector<std::int64_t>& samples);

}  // namespace bench
