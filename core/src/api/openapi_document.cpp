#include "api/openapi_document.h"

#include "http/conditional_get.h"

#include <string>

namespace modelgw::api {

// Generated from docs/openapi.yaml (build tree: core/embedded_openapi.cpp).
extern const char* const kEmbeddedOpenapiPieces[];
extern const std::size_t kEmbeddedOpenapiPieceCount;
extern const char kEmbeddedOpenapiEtag[];

std::string_view openapi_json() {
  // The generator writes the document in pieces (compilers bound one string
  // literal's length); joined once, on first use.
  static const std::string joined = [] {
    std::string out;
    for (std::size_t i = 0; i < kEmbeddedOpenapiPieceCount; ++i) out += kEmbeddedOpenapiPieces[i];
    return out;
  }();
  return joined;
}

std::string_view openapi_etag() {
  return kEmbeddedOpenapiEtag;
}

void send_openapi_document(http::ServerCall& call) {
  const std::string_view method = call.request().method;
  if (method != "GET") {
    call.set_header("Allow", "GET");
    call.send_error(errors::ApiError{
        405,
        "method_not_allowed",
        errors::input_excerpt(method) + " is not allowed on " + std::string(kOpenapiPath) + "; use GET",
        {}});
    return;
  }
  call.set_header("ETag", std::string(openapi_etag()));
  call.set_header("Cache-Control", "no-cache");
  if (http::if_none_match_hits(call.request().header("If-None-Match"), openapi_etag())) {
    call.send_not_modified();
    return;
  }
  call.send_json(200, openapi_json());
}

}  // namespace modelgw::api
