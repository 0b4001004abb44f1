// HTTP helpers for provider plugins: header lookup in what the host passes,
// field-syntax checks (RFC 9110), the host's clock, URL path encoding.
// Header-only C++17; needs the SDK's plugin.h and sdk.hpp and the C++ standard
// library.
#pragma once

#include <modelgw/plugin.h>
#include <modelgw/provider/ascii.hpp>
#include <modelgw/sdk.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mgw::provider {

// RFC 9110 tchar: what a header name (and a media type's parts) is made of.
inline constexpr bool is_tchar(char c) noexcept {
  return is_ascii_alpha(c) || is_ascii_digit(c) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// True when `s` is a non-empty RFC 9110 token, e.g. a valid header name.
inline constexpr bool is_token(std::string_view s) noexcept {
  if (s.empty()) {
    return false;
  }
  for (char c : s) {
    if (!is_tchar(c)) {
      return false;
    }
  }
  return true;
}

// True when `s` holds a control character other than tab: in a header value
// CR LF would inject a header and NUL would cut the value short.
inline constexpr bool has_control(std::string_view s) noexcept {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) {
      return true;
    }
  }
  return false;
}

// Value of the first header named `name` (any case), trimmed of spaces and
// tabs. `headers` may be NULL when `count` is 0.
inline std::optional<std::string_view> find_header(const mgw_header* headers, std::size_t count,
                                                   std::string_view name) noexcept {
  if (headers == nullptr) {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (iequals(view(headers[i].name), name)) {
      return trim_ows(view(headers[i].value));
    }
  }
  return std::nullopt;
}

// Wall-clock milliseconds from the host (so tests and the gateway agree on
// "now"), or from the system clock when there is no host table or callback.
inline int64_t now_unix_ms(const mgw_host_api* host) noexcept {
  if (host != nullptr && host->callback_now_unix_ms != nullptr) {
    return host->callback_now_unix_ms(host->host_data);
  }
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// The Content-Type's media type ("text/html"), tchar and '/' bytes only and at
// most 100 of them, or "no content type": the vendor controls the header, and
// the result goes into a client's error message.
inline std::string media_type(const mgw_header* headers, std::size_t count) {
  // Only a media type from this list is named: a header's text is the
  // vendor's (or a proxy's), and "text/<anything>" can carry a credential,
  // which must never reach a client's error message.
  static constexpr std::string_view kNamed[] = {"text/html",
                                                "text/plain",
                                                "text/xml",
                                                "application/xml",
                                                "application/json",
                                                "text/event-stream",
                                                "application/x-ndjson",
                                                "application/octet-stream",
                                                "text/css",
                                                "application/javascript",
                                                "application/problem+json",
                                                "application/grpc"};
  auto value = find_header(headers, count, "content-type");
  if (!value) return "no content type";
  std::string type;
  for (char c : value->substr(0, value->find(';'))) {
    if (c == ' ' || c == '\t') continue;
    if (type.size() >= 40) return "an unrecognised content type";
    type.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  for (std::string_view known : kNamed) {
    if (type == known) return type;
  }
  return "an unrecognised content type";
}

// `s` as one URL path segment: RFC 3986 unreserved bytes stay, every other
// byte becomes %XX. So a catalog name holding '/', ':', '?' or '#' cannot
// change which method or path the request reaches.
inline std::string percent_encode_segment(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (is_ascii_alpha(c) || is_ascii_digit(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(c);
      continue;
    }
    const auto u = static_cast<unsigned char>(c);
    out.push_back('%');
    out.push_back(kHex[u >> 4]);
    out.push_back(kHex[u & 0x0F]);
  }
  return out;
}

}  // namespace mgw::provider
