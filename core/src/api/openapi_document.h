// GET /v1/openapi.json: docs/openapi.yaml (OpenAPI 3.1), converted to JSON at
// build time (core/tools/openapi_embed.mjs) and embedded in the binary. No
// key is needed: it is the public description. It carries an ETag (a hash of
// the document) and answers 304 to a matching If-None-Match; other methods
// are 405.
#pragma once

#include "http/server_call.h"

#include <string_view>

namespace modelgw::api {

inline constexpr std::string_view kOpenapiPath = "/v1/openapi.json";

// The embedded document (JSON text) and its strong ETag, quotes included.
std::string_view openapi_json();
std::string_view openapi_etag();

// Answers a request for kOpenapiPath.
void send_openapi_document(http::ServerCall& call);

}  // namespace modelgw::api
