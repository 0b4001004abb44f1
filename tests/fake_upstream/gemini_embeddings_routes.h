// Gemini's embedding and counting methods on /v1beta/models/{model}:
// embedContent, batchEmbedContents (the deterministic vectors of
// embedding_vectors.h) and countTokens (the prompt count generateContent
// reports for the same contents, gemini_format.h).
#pragma once

#include <string>

#include "server_context.h"

namespace Poco::Net {
class HTTPRequestHandler;
}

namespace fake_upstream::gemini {

// A new handler when `action` is one of those methods, otherwise nullptr.
// `model` is the path's model, percent-decoded (fault directives included).
Poco::Net::HTTPRequestHandler* embeddingsRoute(const ServerContext& ctx, const std::string& model,
                                               const std::string& action);

}  // namespace fake_upstream::gemini
