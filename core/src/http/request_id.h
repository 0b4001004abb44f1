#pragma once

#include <string>

namespace modelgw::http {

// "req_" followed by 24 random base62 characters (about 143 bits), unique
// enough to be the support handle for any request ever served.
std::string new_request_id();

}  // namespace modelgw::http
