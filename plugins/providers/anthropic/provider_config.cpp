#include "provider_config.h"

#include "native_operations.h"

namespace mgw::anthropic {

using namespace mgw::provider;

std::optional<ProviderConfig> parse_config(std::string_view json, std::string& error) {
  const std::optional<Json> cfg = parse_config_object(json, error);
  if (!cfg) {
    return std::nullopt;
  }
  ProviderConfig out;
  std::string version(kDefaultAnthropicVersion);
  std::string beta;
  if (!read_api_key(*cfg, out.api_key, error) ||
      !read_header_string(*cfg, "anthropic_version", version, error) ||
      !read_header_string(*cfg, "beta", beta, error) ||
      !read_native_operations(*cfg, out.native_operations, error)) {
    return std::nullopt;
  }
  // Anthropic refuses a request without a version; an empty one is a typo.
  if (version.empty() || has_edge_whitespace(version)) {
    error = "anthropic_version: must be a non-empty date such as 2023-06-01";
    return std::nullopt;
  }

  if (!out.api_key.empty()) {
    out.headers.push_back(HeaderLine{"x-api-key", out.api_key});
  }
  out.headers.push_back(HeaderLine{"anthropic-version", std::move(version)});
  if (!beta.empty()) {
    out.headers.push_back(HeaderLine{"anthropic-beta", std::move(beta)});
  }
  out.headers.push_back(HeaderLine{"content-type", "application/json"});
  if (!read_extra_headers(*cfg, out.headers, out.custom_accept, error)) {
    return std::nullopt;
  }
  return out;
}

}  // namespace mgw::anthropic
