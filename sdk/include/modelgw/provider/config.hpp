// Reading a provider's configuration block (providers.<name> of the gateway's
// YAML, as JSON): string members that end up in request headers, and the
// operator's extra `headers`, checked once at start-up so that no request can
// carry a header the operator did not mean.
// Header-only C++17; needs nlohmann-json (3.10 or later), the SDK's plugin.h
// and sdk.hpp, and the C++ standard library.
#pragma once

#include <modelgw/provider/ascii.hpp>
#include <modelgw/provider/http.hpp>
#include <modelgw/provider/json.hpp>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mgw::provider {

// One request header, computed at start-up.
struct HeaderLine {
  std::string name;
  std::string value;
};

// Headers the host owns (see mgw_request_sink): configuring one is a mistake
// worth refusing at start-up rather than dropping on every request.
inline constexpr std::array<std::string_view, 4> kHostOwnedHeaders = {"Host", "Content-Length", "Connection",
                                                                      "Transfer-Encoding"};

inline bool is_host_owned_header(std::string_view name) noexcept {
  for (std::string_view h : kHostOwnedHeaders) {
    if (iequals(h, name)) {
      return true;
    }
  }
  return false;
}

// True when `s` starts or ends with a space or a tab: a key read from a file
// often keeps a stray blank, and the vendor would then refuse every call.
inline bool has_edge_whitespace(std::string_view s) noexcept {
  return !s.empty() && (s.front() == ' ' || s.front() == '\t' || s.back() == ' ' || s.back() == '\t');
}

inline constexpr std::string_view kNoControlCharacters =
    ": must not contain control characters such as line breaks";

// Sets header `name` (any case) to `value`, replacing a header of that name.
inline void set_header(std::vector<HeaderLine>& headers, std::string_view name, std::string value) {
  for (auto& h : headers) {
    if (iequals(h.name, name)) {
      h.value = std::move(value);
      return;
    }
  }
  headers.push_back(HeaderLine{std::string(name), std::move(value)});
}

// The block parsed, or nullopt with `error` set to "provider config: …" when
// it is not JSON or not an object.
inline std::optional<Json> parse_config_object(std::string_view json, std::string& error) {
  Json cfg = parse_json(json);
  if (cfg.is_discarded()) {
    error = "provider config: not valid JSON";
    return std::nullopt;
  }
  if (!cfg.is_object()) {
    error = "provider config: must be a JSON object";
    return std::nullopt;
  }
  return cfg;
}

// Reads the optional string member `key` into `out` (null counts as absent;
// `out` keeps its value then). Returns false, with `error` set to
// "<key>: <problem>" and never quoting the value, for another type or a value
// unsafe in a header.
inline bool read_header_string(const Json& cfg, std::string_view key, std::string& out, std::string& error) {
  const Json* v = member(cfg, key);
  if (v == nullptr) {
    return true;
  }
  if (!v->is_string()) {
    error = std::string(key) + ": must be a string";
    return false;
  }
  if (has_control(v->get_ref<const std::string&>())) {
    error = std::string(key) + std::string(kNoControlCharacters);
    return false;
  }
  out = v->get<std::string>();
  return true;
}

// Reads the optional `api_key` like read_header_string and refuses a key with
// surrounding whitespace.
inline bool read_api_key(const Json& cfg, std::string& out, std::string& error) {
  if (!read_header_string(cfg, "api_key", out, error)) {
    return false;
  }
  if (has_edge_whitespace(out)) {
    error = "api_key: must not start or end with whitespace";
    return false;
  }
  return true;
}

// Applies the optional `headers` object (header name → string value) to
// `headers`, where a configured header replaces a built-in one of the same
// name; sets `custom_accept` when it configures Accept. Returns false, with
// `error` set, for a name that is not an RFC 9110 token, a host-owned header,
// a value that is not a string or holds a control character.
inline bool read_extra_headers(const Json& cfg, std::vector<HeaderLine>& headers, bool& custom_accept,
                               std::string& error) {
  const Json* extra = member(cfg, "headers");
  if (extra == nullptr) {
    return true;
  }
  if (!extra->is_object()) {
    error = "headers: must be an object of header names to string values";
    return false;
  }
  for (const auto& item : extra->items()) {
    const std::string& name = item.key();
    const std::string path = "headers." + name;
    if (!is_token(name)) {
      // The name is the operator's, not a secret, but may be anything: cut it.
      error = "headers: '" + name.substr(0, 64) + "' is not a valid header name";
      return false;
    }
    if (is_host_owned_header(name)) {
      error = path + ": is set by the gateway and cannot be configured";
      return false;
    }
    if (!item.value().is_string()) {
      error = path + ": must be a string";
      return false;
    }
    if (has_control(item.value().get_ref<const std::string&>())) {
      error = path + std::string(kNoControlCharacters);
      return false;
    }
    custom_accept = custom_accept || iequals(name, "Accept");
    set_header(headers, name, item.value().get<std::string>());
  }
  return true;
}

}  // namespace mgw::provider
