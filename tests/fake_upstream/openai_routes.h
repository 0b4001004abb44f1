// OpenAI-compatible routes: POST /v1/chat/completions.
#pragma once

#include <string_view>

#include "server_context.h"

namespace Poco::Net {
class HTTPRequestHandler;
}

namespace fake_upstream::openai {

// A new handler when (method, path) is an OpenAI route, otherwise nullptr.
Poco::Net::HTTPRequestHandler* route(std::string_view method, std::string_view path,
                                     const ServerContext& ctx);

}  // namespace fake_upstream::openai
