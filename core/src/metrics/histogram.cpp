#include "metrics/histogram.h"

#include "metrics/exposition.h"

#include <charconv>

namespace modelgw::metrics {

BucketLayout::BucketLayout(std::span<const std::int64_t> bounds, double scale)
    : bounds_(bounds.begin(), bounds.end()), scale_(scale) {
  for (auto b : bounds_) {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<double>(b) / scale_);
    le_.push_back("le=\"" + std::string(buf, ec == std::errc() ? end : buf) + "\"");
  }
  le_.push_back("le=\"+Inf\"");
}

Histogram::Histogram(const BucketLayout& layout)
    : layout_(layout), buckets_(new std::atomic<std::uint64_t>[layout.bounds().size() + 1]) {
  for (std::size_t i = 0; i <= layout.bounds().size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(std::int64_t value) noexcept {
  const auto bounds = layout_.bounds();
  std::size_t i = 0;
  while (i < bounds.size() && value > bounds[i]) ++i;  // le: upper bounds are inclusive
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

void Histogram::write(std::string& out, std::string_view name, std::string_view labels) const {
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i <= layout_.bounds().size(); ++i) {
    cumulative += buckets_[i].load(std::memory_order_relaxed);
    write_sample(out, name, "_bucket", labels, layout_.le(i), cumulative);
  }
  // _count is the +Inf bucket as read here (not count_): relaxed adds from
  // other threads may land between the loads, and the two must agree.
  const double sum = static_cast<double>(sum_.load(std::memory_order_relaxed)) / layout_.scale();
  write_sample(out, name, "_sum", labels, {}, sum);
  write_sample(out, name, "_count", labels, {}, cumulative);
}

}  // namespace modelgw::metrics
