// The host side of the provider ABI's sinks: collectors that copy what a
// provider plugin emits for one call (the upstream request it built, or the
// translated whole response).
#pragma once

#include "http/api_error.h"
#include "upstream/failure.h"

#include <modelgw/plugin.h>

#include <optional>
#include <string>

namespace modelgw::chat {

// Converts a plugin's mgw_error_info into the client-facing error.
http::ApiError to_api_error(const mgw_error_info& info);

// Collects the upstream request from on_build_request.
struct RequestCollector {
  RequestCollector();
  upstream::OutgoingRequest request;
  std::optional<http::ApiError> error;
  mgw_request_sink sink{};
  mgw_response_sink error_sink{};
};

// Collects a whole translated response from on_parse_response.
struct ResponseCollector {
  ResponseCollector();
  std::string body;
  bool has_body = false;
  std::optional<mgw_usage> usage;
  std::optional<http::ApiError> error;
  mgw_response_sink sink{};
};

}  // namespace modelgw::chat
