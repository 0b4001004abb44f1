// OpenAI's embeddings route: POST /v1/embeddings, answered with the
// deterministic vectors of embedding_vectors.h.
#pragma once

#include <string_view>

#include "server_context.h"

namespace Poco::Net {
class HTTPRequestHandler;
}

namespace fake_upstream::openai {

// A new handler when (method, path) is POST /v1/embeddings, otherwise nullptr.
Poco::Net::HTTPRequestHandler* embeddingsRoute(std::string_view method, std::string_view path,
                                               const ServerContext& ctx);

}  // namespace fake_upstream::openai
