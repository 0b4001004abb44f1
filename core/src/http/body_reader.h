#pragma once

#include "http/api_error.h"

#include <Poco/Net/HTTPServerRequest.h>

#include <string>
#include <variant>

namespace modelgw::http {

// Reads a request body of at most `max_bytes`: 413 request_too_large beyond it
// (refused from Content-Length before reading when the client declared one).
std::variant<std::string, ApiError> read_body(Poco::Net::HTTPServerRequest& request, std::size_t max_bytes);

}  // namespace modelgw::http
