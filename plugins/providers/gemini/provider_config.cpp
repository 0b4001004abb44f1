#include "provider_config.h"

#include "http_util.h"
#include "json_util.h"

#include <algorithm>
#include <array>

namespace mgw::gemini {
namespace {

// Headers the host owns (see mgw_request_sink): configuring them is a mistake
// worth refusing at start-up rather than ignoring silently per request.
constexpr std::array<std::string_view, 4> kHostHeaders = {"Host", "Content-Length", "Connection",
                                                          "Transfer-Encoding"};

// RFC 9110 token characters.
bool is_token(std::string_view s) {
  if (s.empty()) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

// A control character in a header value would let a config value inject
// headers (CR LF) or be cut short (NUL).
bool has_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
}

constexpr std::string_view kNoControl = ": must not contain control characters such as line breaks";

// Reads the optional api_key; null counts as absent.
bool read_api_key(const Json& cfg, std::string& out, std::string& error) {
  const Json* key = member(cfg, "api_key");
  if (key == nullptr) {
    return true;
  }
  if (!key->is_string()) {
    error = "api_key: must be a string";
    return false;
  }
  out = key->get<std::string>();
  if (has_control(out)) {
    error = "api_key" + std::string(kNoControl);
    return false;
  }
  // A key read from a file often keeps a stray blank; Gemini would answer
  // 400 "API key not valid" for every call, so say it at start-up instead.
  if (!out.empty() &&
      (out.front() == ' ' || out.back() == ' ' || out.front() == '\t' || out.back() == '\t')) {
    error = "api_key: must not start or end with whitespace";
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
  const Json* headers = member(cfg, "headers");
  if (headers == nullptr) {
    return true;
  }
  if (!headers->is_object()) {
    error = "headers: must be an object of header names to string values";
    return false;
  }
  for (const auto& item : headers->items()) {
    const std::string& name = item.key();
    const Json& value = item.value();
    const std::string path = "headers." + name;
    if (!is_token(name)) {
      error = "headers: '" + name.substr(0, 64) + "' is not a valid header name";
      return false;
    }
    if (std::any_of(kHostHeaders.begin(), kHostHeaders.end(), [&](auto h) { return iequals(h, name); })) {
      error = path + ": is set by the gateway and cannot be configured";
      return false;
    }
    if (!value.is_string()) {
      error = path + ": must be a string";
      return false;
    }
    if (has_control(value.get_ref<const std::string&>())) {
      error = path + std::string(kNoControl);
      return false;
    }
    if (iequals(name, "Accept")) {
      out.custom_accept = true;
    }
    set_header(out.headers, name, value.get<std::string>());
  }
  return true;
}

}  // namespace

std::optional<ProviderConfig> parse_config(std::string_view json, std::string& error) {
  const Json cfg = Json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (cfg.is_discarded()) {
    error = "provider config: not valid JSON";
    return std::nullopt;
  }
  if (!cfg.is_object()) {
    error = "provider config: must be a JSON object";
    return std::nullopt;
  }

  ProviderConfig out;
  if (!read_api_key(cfg, out.api_key, error)) {
    return std::nullopt;
  }
  // The key goes in a header, never in the URL (?key=…), where proxies and
  // access logs would keep it.
  if (!out.api_key.empty()) {
    out.headers.push_back(HeaderLine{"x-goog-api-key", out.api_key});
  }
  out.headers.push_back(HeaderLine{"Content-Type", "application/json"});
  if (!read_extra_headers(cfg, out, error)) {
    return std::nullopt;
  }
  return out;
}

}  // namespace mgw::gemini
