// Conditional GET (RFC 9110 13.1.2): whether a client's If-None-Match names
// the representation it already holds, so a 304 can answer instead of it.
#pragma once

#include <string_view>

namespace modelgw::http {

// Whether an If-None-Match field value matches `etag` by the weak comparison
// 13.1.2 requires there: a list of entity tags, W/ prefixes ignored on either
// side, `*` matching any.
bool if_none_match_hits(std::string_view if_none_match, std::string_view etag);

}  // namespace modelgw::http
