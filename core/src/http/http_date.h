// The Date header's value (RFC 9110 section 6.6.1), formatted at most once a
// second per thread rather than once per response.
#pragma once

#include <string_view>

namespace modelgw::http {

// "Tue, 24 Nov 2026 18:02:37 GMT"; valid until the calling thread's next call.
std::string_view http_date_now();

}  // namespace modelgw::http
