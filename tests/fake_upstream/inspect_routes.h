// Test-only endpoints under /_fake/: health and the received-requests log.
// These requests are not themselves recorded.
#pragma once

#include <string_view>

#include "server_context.h"

namespace Poco::Net {
class HTTPRequestHandler;
}

namespace fake_upstream {

// Handles every /_fake/... request (unknown ones get 404 or 405).
Poco::Net::HTTPRequestHandler* makeInspectHandler(const ServerContext& ctx);

}  // namespace fake_upstream
