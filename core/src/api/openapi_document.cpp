#include "api/openapi_document.h"

#include <string>

namespace modelgw::api {

// Generated from docs/openapi.yaml (build tree: core/embedded_openapi.cpp).
extern const char* const kEmbeddedOpenapiPieces[];
extern const std::size_t kEmbeddedOpenapiPieceCount;
extern const char kEmbeddedOpenapiEtag[];

namespace {

// Whether an If-None-Match value names `etag` (a list, weak or strong, or *).
bool openapi_etag_matches(std::string_view header, std::string_view etag) {
  while (!header.empty()) {
    const auto comma = header.find(',');
    std::string_view item = header.substr(0, comma);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (item.substr(0, 2) == "W/") item.remove_prefix(2);
    if (item == "*" || item == etag) return true;
    if (comma == std::string_view::npos) break;
    header.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

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
  if (openapi_etag_matches(call.request().header("If-None-Match"), openapi_etag())) {
    call.send_text(304, "application/json", {});
    return;
  }
  call.send_json(200, openapi_json());
}

}  // namespace modelgw::api
