// A provider plugin's response mapper, through on_parse_response as the
// gateway calls it. Input: a small HTTP-like text, so fixtures make seeds:
//
//   429                       the status (decimal, may be negative or absurd)
//   Retry-After: 20           header lines, "name: value", up to a blank line
//                             (at most 32; a trailing CR is dropped)
//   {"error": ...}            the body: the rest of the input
//
// Besides the sink's checks (provider_host.h): the hook returns OK and calls
// exactly one of callback_body and callback_error, and never callback_body
// for a status outside 2xx.
#include "provider_host.h"

#include <modelgw/sdk.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Response {
  int32_t status = 200;
  std::vector<mgw_header> headers;
  std::string_view body;
};

// The next line of `rest` (without its LF and a CR before it); consumes it.
std::string_view take_line(std::string_view& rest) {
  const std::size_t eol = rest.find('\n');
  std::string_view line = rest.substr(0, eol);
  rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

int32_t read_status(std::string_view line) {
  bool negative = false;
  bool any = false;
  int64_t value = 0;
  for (const char c : line) {
    if (c == '-' && !any) {
      negative = true;
    } else if (c >= '0' && c <= '9') {
      any = true;
      if (value < 100000000) value = value * 10 + (c - '0');
    } else if (any) {
      break;
    }
  }
  if (!any) return 200;
  return static_cast<int32_t>(negative ? -value : value);
}

Response read_response(std::string_view data) {
  constexpr std::size_t kMaxHeaders = 32;
  Response r;
  r.status = read_status(take_line(data));
  while (!data.empty()) {
    const std::string_view line = take_line(data);
    if (line.empty()) break;
    if (r.headers.size() == kMaxHeaders) continue;
    const std::size_t colon = line.find(':');
    std::string_view name = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    r.headers.push_back(mgw_header{mgw::str(name), mgw::str(value)});
  }
  r.body = data;
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Response r = read_response(std::string_view(reinterpret_cast<const char*>(data), size));
  const mgw_call_context ctx = fuzz::call_context(/*stream=*/false);
  fuzz::Transcript t;
  fuzz::expect_ok(fuzz::provider_hooks().on_parse_response(fuzz::provider(), &ctx, r.status, r.headers.data(),
                                                           r.headers.size(), mgw::str(r.body), t.sink()),
                  "on_parse_response");
  if (t.bodies() + (t.failed() ? 1 : 0) != 1) {
    fuzz::finding("on_parse_response called callback_body " + std::to_string(t.bodies()) +
                  " times and callback_error " + (t.failed() ? "once" : "never"));
  }
  if (t.bodies() > 0 && (r.status < 200 || r.status > 299)) {
    fuzz::finding("a body for HTTP status " + std::to_string(r.status));
  }
  return 0;
}
