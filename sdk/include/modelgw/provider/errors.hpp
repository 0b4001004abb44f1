// Vendor failures in the gateway's terms (spec §7): the error codes, the
// table that classifies a vendor's HTTP status, and the texts every provider
// uses for the rows that never quote the vendor.
//
// The status table is data: StatusTable holds the default rows below and a
// vendor's override rows, which replace a default row for the statuses they
// cover, e.g. Anthropic's 402 (out of credit), Gemini's 504 (a timeout):
//
//   constexpr std::array<mgw::provider::StatusRow, 1> kGeminiRows = {{
//       {504, 504, {504, mgw::provider::kProviderTimeout, true}}}};
//   constexpr mgw::provider::StatusTable kStatusTable(kGeminiRows);
//   const mgw::provider::ErrorClass c = kStatusTable.classify(vendor_status);
//
// A provider then refines a class from what the body says (an over-long
// prompt is 422 context_length_exceeded whatever its status).
// Header-only C++17; needs the SDK's plugin.h and sdk.hpp and the C++
// standard library.
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/provider/http.hpp>
#include <modelgw/sdk.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace mgw::provider {

// Spec §7.3 error codes a provider reports.
inline constexpr std::string_view kProviderFailed = "provider_failed";
inline constexpr std::string_view kProviderTimeout = "provider_timeout";
inline constexpr std::string_view kRateLimitExceeded = "rate_limit_exceeded";
inline constexpr std::string_view kContextLengthExceeded = "context_length_exceeded";
inline constexpr std::string_view kUnsupportedParameter = "unsupported_parameter";
inline constexpr std::string_view kInvalidParameter = "invalid_parameter";
inline constexpr std::string_view kInternalError = "internal_error";

// What the client gets for a vendor failure.
struct ErrorClass {
  int32_t http_status;    // the status the client sees
  std::string_view code;  // one of the codes above
  bool retryable;         // the gateway may retry or fall back (and pass on Retry-After)
};

// One row: vendor statuses first..last (inclusive) → their class.
struct StatusRow {
  int32_t first;
  int32_t last;
  ErrorClass to;
};

// The default rows, the first match wins:
//   401, 403  502 provider_failed, not retryable: the gateway's credentials are
//             the operator's to fix;
//   404       502 provider_failed, not retryable: the catalog names a model
//             the vendor does not know;
//   408       504 provider_timeout, retryable;
//   400, 422  400 invalid_parameter, not retryable: the vendor refused the request;
//   429       429 rate_limit_exceeded, retryable;
//   5xx       502 provider_failed, retryable: a retry may cure a server error.
// Any other status (1xx, 3xx, 409, …) is kUnexpectedStatus.
inline constexpr std::array<StatusRow, 8> kDefaultStatusRows = {{
    {401, 401, {502, kProviderFailed, false}},
    {403, 403, {502, kProviderFailed, false}},
    {404, 404, {502, kProviderFailed, false}},
    {408, 408, {504, kProviderTimeout, true}},
    {400, 400, {400, kInvalidParameter, false}},
    {422, 422, {400, kInvalidParameter, false}},
    {429, 429, {429, kRateLimitExceeded, true}},
    {500, 599, {502, kProviderFailed, true}},
}};

// A status no row covers: a surprise no retry fixes.
inline constexpr ErrorClass kUnexpectedStatus = {502, kProviderFailed, false};

// The default rows plus a vendor's overrides (which the table does not own:
// keep them in static storage, as a constexpr array is).
class StatusTable {
 public:
  constexpr StatusTable() noexcept = default;
  constexpr StatusTable(const StatusRow* overrides, std::size_t count) noexcept
      : overrides_(overrides), count_(overrides == nullptr ? 0 : count) {}
  // No null check here: comparing a static's address with nullptr is not a
  // constant expression under AddressSanitizer.
  template <std::size_t N>
  constexpr explicit StatusTable(const std::array<StatusRow, N>& overrides) noexcept
      : overrides_(overrides.data()), count_(N) {}

  // The first override row covering `status`, else the first default row,
  // else kUnexpectedStatus.
  constexpr ErrorClass classify(int32_t status) const noexcept {
    for (std::size_t i = 0; i < count_; ++i) {
      if (status >= overrides_[i].first && status <= overrides_[i].last) {
        return overrides_[i].to;
      }
    }
    for (const StatusRow& row : kDefaultStatusRows) {
      if (status >= row.first && status <= row.last) {
        return row.to;
      }
    }
    return kUnexpectedStatus;
  }

 private:
  const StatusRow* overrides_ = nullptr;
  std::size_t count_ = 0;
};

// What mapping a vendor failure needs to know about the provider and the call.
struct ErrorContext {
  std::string_view api_key;         // masked wherever the vendor echoes it
  std::string_view upstream_model;  // named in the 404 message
  int64_t now_unix_ms = 0;          // for a Retry-After given as an HTTP-date
};

// One error, ready for mgw_error_info. Vendor text in `message` must have
// gone through vendor_text() (secret_mask.hpp): masked and cut.
struct MappedError {
  int32_t http_status = 502;
  std::string_view code = kProviderFailed;
  std::string message;
  std::string param;
  bool retryable = false;
  int64_t retry_after_ms = -1;
};

// An error of class `c` with `message`; the vendor's Retry-After goes with a
// retryable class only.
inline MappedError mapped(const ErrorClass& c, std::string message, int64_t retry_after_ms = -1) {
  return MappedError{
      c.http_status, c.code, std::move(message), {}, c.retryable, c.retryable ? retry_after_ms : -1};
}

// A 502 provider_failed: the vendor failed in a way the status table has no
// row for (a bad 2xx body, a broken stream).
inline MappedError provider_failed(std::string message, bool retryable) {
  return MappedError{502, kProviderFailed, std::move(message), {}, retryable};
}

// Reports `e` through the sink.
inline void emit_error(const mgw_response_sink* out, const MappedError& e) noexcept {
  fail(out, e.http_status, e.code, e.message, e.param, e.retryable, e.retry_after_ms);
}

// Fixed texts for rows whose vendor text would be unsafe or useless to a
// client: whatever a vendor says about credentials may quote them.
inline constexpr std::string_view kCredentialsMessage =
    "the upstream provider rejected the gateway's credentials; the operator must check the provider's "
    "api_key";
inline constexpr std::string_view kRejectedPrefix = "upstream rejected the request: ";

inline std::string unknown_model_message(std::string_view upstream_model) {
  return "the upstream provider does not know model '" + std::string(upstream_model) + "'";
}

// "1 second", "3 seconds": a delay in milliseconds, rounded up.
inline std::string seconds_text(int64_t ms) {
  const int64_t seconds = (ms + 999) / 1000;
  return std::to_string(seconds) + (seconds == 1 ? " second" : " seconds");
}

inline std::string rate_limited_message(int64_t retry_after_ms) {
  return "the upstream provider is rate limiting; retry " +
         (retry_after_ms >= 0 ? "after " + seconds_text(retry_after_ms) : std::string("later"));
}

// What can be said about a failed response's body without echoing it:
// " with an empty body", " with a non-JSON body (text/html)" (the media type
// from the response's headers), or "" (JSON that carries no message).
inline std::string body_shape(bool blank, bool not_json, const mgw_header* headers, std::size_t count) {
  if (blank) {
    return " with an empty body";
  }
  if (not_json) {
    return " with a non-JSON body (" + media_type(headers, count) + ")";
  }
  return {};
}

// True when `body` holds nothing but whitespace.
inline bool is_blank(std::string_view body) noexcept {
  return body.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace mgw::provider
