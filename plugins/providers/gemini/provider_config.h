// The provider's configuration: the YAML block providers.<name>, as JSON.
#pragma once

#include <modelgw/provider/config.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mgw::gemini {

using provider::HeaderLine;

// Read-only once built, so every concurrent call may share it without locks.
struct ProviderConfig {
  std::string api_key;  // a secret: never logged, never echoed
  // Every header a request carries except Accept, computed once at start-up:
  // x-goog-api-key (when api_key is set), Content-Type, then the configured
  // extra headers, which replace a built-in header of the same name.
  std::vector<HeaderLine> headers;
  // The operator configured an Accept header, which then replaces ours.
  bool custom_accept = false;
  // The operations besides chat served natively (ABI 1.11): "embeddings",
  // "count_tokens".
  std::vector<std::string> native_operations;
};

// Parses and validates the block. Keys this plugin does not know (base_url,
// timeout_ms, … which the host reads) are ignored. On failure returns nullopt
// and sets `error` to "<key path>: <problem>", never quoting a value.
std::optional<ProviderConfig> parse_config(std::string_view json, std::string& error);

}  // namespace mgw::gemini
