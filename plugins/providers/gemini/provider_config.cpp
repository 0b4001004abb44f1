#include "provider_config.h"

#include "native_operations.h"

namespace mgw::gemini {

using namespace mgw::provider;

std::optional<ProviderConfig> parse_config(std::string_view json, std::string& error) {
  const std::optional<Json> cfg = parse_config_object(json, error);
  if (!cfg) {
    return std::nullopt;
  }
  ProviderConfig out;
  // A key with a stray blank would make Gemini answer 400 "API key not
  // valid" to every call: read_api_key refuses it at start-up instead.
  if (!read_api_key(*cfg, out.api_key, error)) {
    return std::nullopt;
  }
  // The key goes in a header, never in the URL (?key=…), where proxies and
  // access logs would keep it.
  if (!out.api_key.empty()) {
    out.headers.push_back(HeaderLine{"x-goog-api-key", out.api_key});
  }
  out.headers.push_back(HeaderLine{"Content-Type", "application/json"});
  if (!read_extra_headers(*cfg, out.headers, out.custom_accept, error)) {
    return std::nullopt;
  }
  if (!read_native_operations(*cfg, out.native_operations, error)) {
    return std::nullopt;
  }
  return out;
}

}  // namespace mgw::gemini
