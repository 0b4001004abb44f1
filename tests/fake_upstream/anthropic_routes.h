// Anthropic-compatible routes: POST /v1/messages and POST
// /v1/messages/count_tokens.
#pragma once

#include <string_view>

#include "server_context.h"

namespace Poco::Net {
class HTTPRequestHandler;
}

namespace fake_upstream::anthropic {

// A new handler when (method, path) is an Anthropic route, otherwise nullptr.
Poco::Net::HTTPRequestHandler* route(std::string_view method, std::string_view path,
                                     const ServerContext& ctx);

}  // namespace fake_upstream::anthropic
