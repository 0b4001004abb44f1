// The host side of the provider ABI's sinks: collectors that copy what a
// provider plugin emits for one call (the upstream request it built, or the
// translated whole response). Every callback follows plugin.h's rule: it never
// unwinds into the plugin. What the host cannot take (it fails, or the plugin
// breaks a rule: a header that could smuggle a line, a struct_size below the
// 1.0 size) turns the rest of the call into no-ops and is reported as
// `breach` once the hook returns.
#pragma once

#include "errors/api_error.h"
#include "plugins/callback_guard.h"
#include "upstream/failure.h"

#include <modelgw/plugin.h>

#include <optional>
#include <string>
#include <string_view>

namespace modelgw::chat {

// Converts a plugin's mgw_error_info into the client-facing error.
errors::ApiError to_api_error(const mgw_error_info& info);

// The 500 for a provider plugin that broke the ABI (or a host callback that
// failed): names the provider and its plugin, never what the plugin passed.
errors::ApiError plugin_breach(std::string_view provider, std::string_view plugin, std::string_view breach);

// What the plugin passed that the host refuses, or "the gateway could not
// take ..." when host code failed; empty while all is well.
struct SinkState {
  plugins::CallbackGuard guard;
  std::string breach;
  void refuse(const char* why) noexcept;
  bool failed() const { return guard.failed(); }
};

// Collects the upstream request from on_build_request, checking each part as
// http/field_rules.h says and dropping the headers that are the host's.
struct RequestCollector {
  RequestCollector();
  RequestCollector(const RequestCollector&) = delete;
  RequestCollector& operator=(const RequestCollector&) = delete;
  upstream::OutgoingRequest request;
  std::optional<errors::ApiError> error;
  SinkState state;
  mgw_request_sink sink{};
  mgw_response_sink error_sink{};
};

// Collects a whole translated response from on_parse_response.
struct ResponseCollector {
  ResponseCollector();
  ResponseCollector(const ResponseCollector&) = delete;
  ResponseCollector& operator=(const ResponseCollector&) = delete;
  std::string body;
  bool has_body = false;
  std::optional<mgw_usage> usage;
  std::optional<errors::ApiError> error;
  SinkState state;
  mgw_response_sink sink{};
};

// True when the plugin's struct covers what ABI 1.0 defines (plugin.h) and,
// for an error, its strings are not NULL with a length.
bool usage_size_ok(const mgw_usage* usage);
bool error_size_ok(const mgw_error_info* error);

// True for the framing and hop-by-hop headers the host writes itself.
bool is_host_owned_header(std::string_view name);

}  // namespace modelgw::chat
