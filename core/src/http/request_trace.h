// The W3C trace a request is served under, from its `traceparent` and
// `tracestate` header fields (trace/trace_context.h).
#pragma once

#include "trace/trace_context.h"

namespace modelgw::http {

struct Request;

// A `traceparent` given more than once is invalid (a new trace starts);
// `tracestate` fields are combined with commas, as HTTP allows for lists.
trace::RequestTrace trace_of(const Request& request);

}  // namespace modelgw::http
