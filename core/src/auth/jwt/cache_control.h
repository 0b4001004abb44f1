// How long a fetched keyset may be used, from the response's Cache-Control
// header (RFC 9111 section 5.2.2).
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace modelgw::auth::jwt {

// max-age=N gives N seconds; no-store and no-cache give 0 (the keys may serve
// the validation that fetched them, nothing later); an unparsable max-age also
// gives 0, as RFC 9111 asks. Nullopt when the header says none of these, so
// the caller's default applies. Several max-age values: the smallest wins.
std::optional<std::chrono::seconds> cache_lifetime(std::string_view cache_control);

}  // namespace modelgw::auth::jwt
