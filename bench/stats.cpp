#include "stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace bench {

std::int64_t percentile(const std::vector<std::int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
  const std::size_t index = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

LatencySummary summarize(std::vector<std::int64_t>& samples) {
  LatencySummary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.count = samples.size();
  s.mean_us = static_cast<double>(std::accumulate(samples.begin(), samples.end(), std::int64_t{0})) /
              static_cast<double>(samples.size());
  s.min_us = samples.front();
  s.p50_us = percentile(samples, 50);
  s.p90_us = percentile(samples, 90);
  s.p99_us = percentile(samples, 99);
  s.max_us = samples.back();
  return s;
}

}  // namespace bench
