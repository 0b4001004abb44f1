// Maps Anthropic's failures onto the gateway's error contract (spec §7).
// The table is in README.md; keep the two in step.
#pragma once

#include "json_util.h"

#include <modelgw/plugin.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mgw::anthropic {

// Spec §7.3 sub-codes this plugin reports.
inline constexpr std::string_view kProviderFailed = "provider_failed";
inline constexpr std::string_view kProviderTimeout = "provider_timeout";
inline constexpr std::string_view kRateLimitExceeded = "rate_limit_exceeded";
inline constexpr std::string_view kContextLengthExceeded = "context_length_exceeded";
inline constexpr std::string_view kUnsupportedParameter = "unsupported_parameter";
inline constexpr std::string_view kInvalidParameter = "invalid_parameter";
inline constexpr std::string_view kInternalError = "internal_error";

// One error, ready for mgw_error_info. Vendor text in `message` went through
// vendor_text(): masked and cut.
struct MappedError {
  int32_t http_status = 502;
  std::string_view code = kProviderFailed;
  std::string message;
  std::string param;
  bool retryable = false;
  int64_t retry_after_ms = -1;
};

// What the mapping needs to know about the provider and the call.
struct ErrorContext {
  std::string_view api_key;         // masked wherever the vendor echoes it
  std::string_view upstream_model;  // named in the 404 message
  int64_t now_unix_ms = 0;          // for a retry-after given as an HTTP-date
};

// A non-2xx response → the client's error.
MappedError map_http_error(const ErrorContext& ctx, int32_t http_status, const mgw_header* headers,
                           std::size_t header_count, std::string_view body);

// A 502 provider_failed: the vendor failed in a way the status table has no
// row for (a bad 2xx body, a broken stream).
MappedError provider_failed(std::string message, bool retryable);

// `prefix`, plus ": <vendor message>" (masked, cut) when `doc` carries one.
std::string with_vendor_message(std::string prefix, const Json& doc, std::string_view api_key);

// Reports `e` through the sink.
void emit_error(const mgw_response_sink* out, const MappedError& e) noexcept;

}  // namespace mgw::anthropic
