// A fixed-bucket histogram of integer observations (microseconds, tokens):
// observe() is a few relaxed atomic adds and no allocation; the buckets are
// cumulated and written only at scrape time.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::metrics {

// The bucket upper bounds (ascending, in the observed unit) and how they are
// written: `scale` divides the unit into the exposed one (1e6: microseconds
// written as seconds). Built once at start-up; shared by many histograms.
class BucketLayout {
 public:
  BucketLayout(std::span<const std::int64_t> bounds, double scale);
  std::span<const std::int64_t> bounds() const { return bounds_; }
  const std::string& le(std::size_t i) const { return le_[i]; }  // `le="0.5"`, the last `le="+Inf"`
  double scale() const { return scale_; }

 private:
  std::vector<std::int64_t> bounds_;
  std::vector<std::string> le_;
  double scale_;
};

class Histogram {
 public:
  explicit Histogram(const BucketLayout& layout);
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  void observe(std::int64_t value) noexcept;

  std::uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  // Writes name_bucket (cumulative, ending with +Inf), name_sum and
  // name_count, each with `labels` (pre-rendered, may be empty).
  void write(std::string& out, std::string_view name, std::string_view labels) const;

 private:
  const BucketLayout& layout_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> buckets_;  // per bucket (not cumulative); last: +Inf
  std::atomic<std::int64_t> sum_{0};
  std::atomic<std::uint64_t> count_{0};
};

}  // namespace modelgw::metrics
