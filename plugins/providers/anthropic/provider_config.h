// The provider's configuration: the YAML block providers.<name>, as JSON.
#pragma once

#include <modelgw/provider/config.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mgw::anthropic {

using provider::HeaderLine;

inline constexpr std::string_view kDefaultAnthropicVersion = "2023-06-01";

// Read-only once built, so every concurrent call shares it without locks.
struct ProviderConfig {
  std::string api_key;  // a secret: never logged, never echoed
  // Every header a request carries except Accept, computed once at start-up:
  // x-api-key (when api_key is set), anthropic-version, anthropic-beta (when
  // set), content-type, then the configured extra headers, which replace a
  // built-in header of the same name.
  std::vector<HeaderLine> headers;
  bool custom_accept = false;  // the operator configured Accept, which then replaces ours
  // The operations besides chat served natively (ABI 1.11): "messages",
  // "count_tokens" (config native_operations; both by default).
  std::vector<std::string> native_operations;

  bool serves(std::string_view operation) const {
    for (const auto& op : native_operations) {
      if (op == operation) {
        return true;
      }
    }
    return false;
  }
};

// Parses and validates the block. Keys this plugin does not know (base_url,
// timeout_ms, … which the host reads) are ignored. On failure returns nullopt
// and sets `error` to "<key>: <problem>", never quoting a value (an
// unknown native_operations name aside, quoted by a short prefix).
std::optional<ProviderConfig> parse_config(std::string_view json, std::string& error);

}  // namespace mgw::anthropic
