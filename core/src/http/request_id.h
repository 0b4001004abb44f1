#pragma once

#include <string>
#include <string_view>

namespace modelgw::http {

// "req_" followed by 24 base62 characters: 8 of time (milliseconds, so ids
// sort by creation) and 16 random (about 95 bits), unique enough to be the
// support handle for any request ever served.
std::string new_request_id();

// Writes `object` (a JSON object's text) into `out` with "request_id" added as
// its first member, without parsing it. False when `object` is not an object.
bool append_with_request_id(std::string& out, std::string_view object, std::string_view request_id);

}  // namespace modelgw::http
