#include "api/metrics_endpoint.h"

#include "metrics/exposition.h"

namespace modelgw::api {
namespace {

// Compares in time that depends only on the lengths, not on where they differ.
bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

void send_metrics(http::ServerCall& call, const MetricsEndpoint& endpoint) {
  if (!endpoint.bearer_token.empty()) {
    const std::string_view header = call.request().header("Authorization");
    constexpr std::string_view kBearer = "Bearer ";
    if (header.size() <= kBearer.size() || header.substr(0, kBearer.size()) != kBearer ||
        !same_secret(header.substr(kBearer.size()), endpoint.bearer_token)) {
      call.set_header("WWW-Authenticate", "Bearer");
      call.send_error(
          errors::ApiError{401,
                           header.empty() ? "missing_api_key" : "invalid_api_key",
                           "GET /metrics needs the bearer token configured as metrics.bearer_token",
                           {}});
      return;
    }
  }
  call.send_text(200, metrics::kContentType, endpoint.registry.render());
}

}  // namespace modelgw::api
