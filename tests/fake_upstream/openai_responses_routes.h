// OpenAI's Responses route: POST /v1/responses, as a gateway that keeps the
// conversation itself must send it ("store": false, no previous_response_id).
#pragma once

#include <string_view>

#include "server_context.h"

namespace Poco::Net {
class HTTPRequestHandler;
}

namespace fake_upstream::openai {

// A new handler when (method, path) is POST /v1/responses, otherwise nullptr.
Poco::Net::HTTPRequestHandler* responsesRoute(std::string_view method, std::string_view path,
                                              const ServerContext& ctx);

}  // namespace fake_upstream::openai
