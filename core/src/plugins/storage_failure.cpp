#include "plugins/storage_failure.h"

#include "plugins/storage.h"

#include <atomic>

namespace modelgw::plugins {
namespace {

std::atomic<std::uint64_t> g_unavailable{0};
std::atomic<std::uint64_t> g_other{0};

}  // namespace

void note_storage_failure(mgw_status status) noexcept {
  (status == MGW_UNAVAILABLE ? g_unavailable : g_other).fetch_add(1, std::memory_order_relaxed);
}

std::uint64_t storage_failures_unavailable() noexcept {
  return g_unavailable.load(std::memory_order_relaxed);
}

std::uint64_t storage_failures_other() noexcept {
  return g_other.load(std::memory_order_relaxed);
}

bool storage_unreachable(const std::exception& failure) {
  const auto* storage = dynamic_cast<const StorageError*>(&failure);
  return storage != nullptr && storage->status() == MGW_UNAVAILABLE;
}

errors::ApiError storage_failure_error(const std::exception& failure) {
  if (!storage_unreachable(failure)) {
    return errors::internal_error(
        "the gateway's storage failed; retry, and report the request_id if it persists");
  }
  errors::ApiError error{
      503, "storage_unavailable", "the gateway cannot reach its database right now; retry in a moment", {}};
  error.retry_after_s = 1;
  error.retryable = true;
  return error;
}

}  // namespace modelgw::plugins
