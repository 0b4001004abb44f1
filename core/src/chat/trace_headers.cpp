#include "chat/trace_headers.h"

#include "util/ascii.h"

#include <algorithm>

namespace modelgw::chat {

void set_trace_headers(std::vector<std::pair<std::string, std::string>>& headers,
                       const trace::RequestTrace& trace) {
  std::erase_if(headers, [](const auto& h) {
    return util::iequals(h.first, "traceparent") || util::iequals(h.first, "tracestate");
  });
  headers.emplace_back("traceparent", trace.traceparent());
  if (!trace.tracestate.empty()) headers.emplace_back("tracestate", trace.tracestate);
}

}  // namespace modelgw::chat
