#pragma once

#include "http/api_error.h"

#include <Poco/Net/HTTPServerRequest.h>

#include <chrono>
#include <string>
#include <variant>

namespace modelgw::http {

// Reads a request body of at most `max_bytes`: 413 request_too_large beyond it
// (refused from Content-Length before reading when the client declared one).
std::variant<std::string, ApiError> read_body(Poco::Net::HTTPServerRequest& request, std::size_t max_bytes);

// Reads and discards what is left of a refused body (at most `max_bytes`, for at
// most `max_time`), so that closing the connection afterwards does not reset it
// while the client is still sending, which would lose the answer just sent.
// True when the body was read to its end.
bool drain_body(Poco::Net::HTTPServerRequest& request, std::size_t max_bytes,
                std::chrono::milliseconds max_time);

}  // namespace modelgw::http
