#include "http/request_trace.h"

#include "http/server_call.h"
#include "util/ascii.h"

#include <optional>
#include <string>
#include <string_view>

namespace modelgw::http {

trace::RequestTrace trace_of(const Request& request) {
  std::optional<std::string_view> parent;
  bool repeated = false;
  std::string state;
  for (const Field& f : request.fields) {
    if (util::iequals(f.name, "traceparent")) {
      repeated = parent.has_value();
      parent = f.value;
    } else if (util::iequals(f.name, "tracestate")) {
      // Bounded: past the limit forwardable_tracestate refuses it anyway.
      if (state.size() > trace::kMaxTracestate) continue;
      if (!state.empty()) state += ',';
      state += f.value;
    }
  }
  if (repeated) parent = std::string_view("invalid: repeated");
  return trace::start_request_trace(parent, state);
}

}  // namespace modelgw::http
