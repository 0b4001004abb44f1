// The one metrics call of a chat call: record_outcome (chat/record.cpp)
// hands over the finished outcome, whatever way the call ended.
#pragma once

#include "chat/outcome.h"
#include "metrics/registry.h"

namespace modelgw::chat {

// Adds the call to `registry` (nullptr: metrics are off). Never allocates.
// Call it after the row's status and latency are set, before it is moved.
void observe_outcome(metrics::Registry* registry, const Outcome& outcome) noexcept;

}  // namespace modelgw::chat
