// What a client is told when the gateway's own storage failed under its
// request: 503 storage_unavailable (retryable, Retry-After: 1) when the
// backend could not be reached, so a partner's retry policy (spec 7.4) waits
// and tries again while the database restarts; 500 for anything else.
#pragma once

#include "errors/api_error.h"

#include <modelgw/plugin.h>

#include <cstdint>
#include <exception>

namespace modelgw::plugins {

errors::ApiError storage_failure_error(const std::exception& failure);

// Whether the failure is the backend being unreachable (MGW_UNAVAILABLE).
bool storage_unreachable(const std::exception& failure);

// Process-wide counts of failed storage hook calls, for GET /metrics:
// note_storage_failure is called once per failure (conflicts and "not
// found" are answers, not failures, and are not counted).
void note_storage_failure(mgw_status status) noexcept;
std::uint64_t storage_failures_unavailable() noexcept;
std::uint64_t storage_failures_other() noexcept;

}  // namespace modelgw::plugins
