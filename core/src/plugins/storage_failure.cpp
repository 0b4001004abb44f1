#include "plugins/storage_failure.h"

#include "plugins/storage.h"

namespace modelgw::plugins {

bool storage_unreachable(const std::exception& failure) {
  const auto* storage = dynamic_cast<const StorageError*>(&failure);
  return storage != nullptr && storage->status() == MGW_UNAVAILABLE;
}

http::ApiError storage_failure_error(const std::exception& failure) {
  if (!storage_unreachable(failure)) {
    return http::internal_error(
        "the gateway's storage failed; retry, and report the request_id if it persists");
  }
  http::ApiError error{
      503, "storage_unavailable", "the gateway cannot reach its database right now; retry in a moment", {}};
  error.retry_after_s = 1;
  error.retryable = true;
  return error;
}

}  // namespace modelgw::plugins
