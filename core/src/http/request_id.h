#pragma once

#include <string>
#include <string_view>

namespace modelgw::http {

// "req_" followed by 24 random base62 characters (about 143 bits), unique
// enough to be the support handle for any request ever served.
std::string new_request_id();

// Writes `object` (a JSON object's text) into `out` with "request_id" added as
// its first member, without parsing it. False when `object` is not an object.
bool append_with_request_id(std::string& out, std::string_view object, std::string_view request_id);

}  // namespace modelgw::http
