#pragma once

#include <cstdint>
#include <string>

namespace modelgw::upstream {

// A provider's base_url taken apart once, at start-up.
struct UpstreamUrl {
  bool https = false;
  std::string host;
  std::uint16_t port = 0;
  std::string base_path;  // without a trailing '/', e.g. "/v1"
};

// Throws std::invalid_argument with a reason.
UpstreamUrl parse_upstream_url(const std::string& url);

}  // namespace modelgw::upstream
