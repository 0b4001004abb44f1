#include "util/batch_purge.h"

#include <spdlog/spdlog.h>

#include <exception>
#include <utility>

namespace modelgw::util {

BatchPurge::BatchPurge(std::string area, std::string rows, PurgeBatch purge_batch)
    : area_(std::move(area)), rows_(std::move(rows)), purge_batch_(std::move(purge_batch)) {}

std::int64_t BatchPurge::purge_once() {
  using namespace std::chrono;
  const std::int64_t now = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  std::int64_t total = 0;
  for (int i = 0; i < kMaxBatches; ++i) {
    const std::int64_t removed = purge_batch_(now, kBatch);
    total += removed;
    if (removed < kBatch) break;
  }
  return total;
}

void BatchPurge::start(std::string_view thread_name, std::chrono::milliseconds interval) {
  thread_.start(thread_name, interval, [this, interval] {
    try {
      const std::int64_t removed = purge_once();
      if (failing_) spdlog::info("{}: purging {} works again", area_, rows_);
      failing_ = false;
      if (removed > 0) spdlog::debug("{}: purged {} {}", area_, removed, rows_);
    } catch (const std::exception& e) {
      if (!failing_) spdlog::warn("{}: purging {} failed: {}", area_, rows_, e.what());
      failing_ = true;
    }
    return interval;
  });
}

}  // namespace modelgw::util
