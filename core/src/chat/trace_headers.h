// The W3C trace headers the gateway sends upstream, for every provider: the
// core sets them, so provider plugins need not know about tracing.
#pragma once

#include "trace/trace_context.h"

#include <string>
#include <utility>
#include <vector>

namespace modelgw::chat {

// Replaces any `traceparent`/`tracestate` a plugin set with the request's:
// its trace id and flags, the gateway's span as parent-id, and the client's
// tracestate unchanged (when it had one worth forwarding).
void set_trace_headers(std::vector<std::pair<std::string, std::string>>& headers,
                       const trace::RequestTrace& trace);

}  // namespace modelgw::chat
