// Gemini-compatible routes:
//   POST /v1beta/models/{model}:generateContent
//   POST /v1beta/models/{model}:streamGenerateContent[?alt=sse]
// The model is taken from the (percent-decoded) path.
#pragma once

#include <string_view>

#include "server_context.h"

namespace Poco::Net {
class HTTPRequestHandler;
}

namespace fake_upstream::gemini {

// A new handler when (method, path) is a Gemini route, otherwise nullptr.
Poco::Net::HTTPRequestHandler* route(std::string_view method, std::string_view path,
                                     const ServerContext& ctx);

}  // namespace fake_upstream::gemini
