#include "provider_config.h"

#include "http_util.h"
#include "json_util.h"

#include <algorithm>
#include <array>

namespace mgw::anthropic {
namespace {

// Headers the host owns (see mgw_request_sink): configuring one is a mistake
// worth refusing at start-up rather than ignoring on every request.
constexpr std::array<std::string_view, 4> kHostHeaders = {"Host", "Content-Length", "Connection",
                                                          "Transfer-Encoding"};

// RFC 9110 token characters.
bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

// A control character in a header value would let a config value inject
// headers (CR LF) or cut one short (NUL).
bool has_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
}

bool edge_whitespace(std::string_view s) {
  return !s.empty() && (s.front() == ' ' || s.front() == '\t' || s.back() == ' ' || s.back() == '\t');
}

// Reads an optional string member into `out` (null counts as absent). Returns
// false, with `error` set, for another type or a value unsafe in a header.
bool read_string(const Json& cfg, std::string_view key, std::string& out, std::string& error) {
  const Json* v = member(cfg, key);
  if (v == nullptr) {
    return true;
  }
  if (!v->is_string()) {
    error = std::string(key) + ": must be a string";
    return false;
  }
  out = v->get<std::string>();
  if (has_control(out)) {
    error = std::string(key) + ": must not contain control characters such as line breaks";
    return false;
  }
  return true;
}

void set_header(std::vector<HeaderLine>& headers, std::string_view name, std::string value) {
  for (auto& h : headers) {
    if (iequals(h.name, name)) {
      h.value = std::move(value);
      return;
    }
  }
  headers.push_back(HeaderLine{std::string(name), std::move(value)});
}

bool read_extra_headers(const Json& cfg, ProviderConfig& out, std::string& error) {
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
    if (std::any_of(kHostHeaders.begin(), kHostHeaders.end(), [&](auto h) { return iequals(h, name); })) {
      error = path + ": is set by the gateway and cannot be configured";
      return false;
    }
    if (!item.value().is_string()) {
      error = path + ": must be a string";
      return false;
    }
    if (has_control(item.value().get_ref<const std::string&>())) {
      error = path + ": must not contain control characters such as line breaks";
      return false;
    }
    out.custom_accept = out.custom_accept || iequals(name, "Accept");
    set_header(out.headers, name, item.value().get<std::string>());
  }
  return true;
}

}  // namespace

std::optional<ProviderConfig> parse_config(std::string_view json, std::string& error) {
  const Json cfg = parse_client_json(json);
  if (cfg.is_discarded()) {
    error = "provider config: not valid JSON";
    return std::nullopt;
  }
  if (!cfg.is_object()) {
    error = "provider config: must be a JSON object";
    return std::nullopt;
  }

  ProviderConfig out;
  std::string version(kDefaultAnthropicVersion);
  std::string beta;
  if (!read_string(cfg, "api_key", out.api_key, error) ||
      !read_string(cfg, "anthropic_version", version, error) || !read_string(cfg, "beta", beta, error)) {
    return std::nullopt;
  }
  // A key read from a file often keeps a stray blank; Anthropic would answer
  // 401 to every call, so say it at start-up instead.
  if (edge_whitespace(out.api_key)) {
    error = "api_key: must not start or end with whitespace";
    return std::nullopt;
  }
  // Anthropic refuses a request without a version; an empty one is a typo.
  if (version.empty() || edge_whitespace(version)) {
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
  if (!read_extra_headers(cfg, out, error)) {
    return std::nullopt;
  }
  return out;
}

}  // namespace mgw::anthropic
