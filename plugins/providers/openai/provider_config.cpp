#include "provider_config.h"

#include "http_util.h"
#include "json_util.h"

#include <algorithm>
#include <array>

namespace mgw::openai {
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

// Reads an optional string member; null counts as absent. Returns false (and
// sets error) when present with another type or unsafe in a header.
bool read_string(const Json& cfg, std::string_view key, std::string& out, std::string& error) {
  auto it = cfg.find(key);
  if (it == cfg.end() || it->is_null()) {
    return true;
  }
  if (!it->is_string()) {
    error = std::string(key) + ": must be a string";
    return false;
  }
  out = it->get<std::string>();
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
  auto it = cfg.find("headers");
  if (it == cfg.end() || it->is_null()) {
    return true;
  }
  if (!it->is_object()) {
    error = "headers: must be an object of header names to string values";
    return false;
  }
  for (const auto& item : it->items()) {
    const std::string& name = item.key();
    const Json& value = item.value();
    const std::string path = "headers." + name;
    if (!is_token(name)) {
      error = "headers: '" + std::string(name).substr(0, 64) + "' is not a valid header name";
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
      error = path + ": must not contain control characters such as line breaks";
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
  std::string organization;
  std::string project;
  if (!read_string(cfg, "api_key", out.api_key, error) ||
      !read_string(cfg, "organization", organization, error) ||
      !read_string(cfg, "project", project, error)) {
    return std::nullopt;
  }
  // A key read from a file often keeps a stray blank; the vendor would answer
  // 401 for every call, so say it at start-up instead.
  if (!out.api_key.empty() && (out.api_key.front() == ' ' || out.api_key.back() == ' ' ||
                               out.api_key.front() == '\t' || out.api_key.back() == '\t')) {
    error = "api_key: must not start or end with whitespace";
    return std::nullopt;
  }

  if (!out.api_key.empty()) {
    out.headers.push_back(HeaderLine{"Authorization", "Bearer " + out.api_key});
  }
  out.headers.push_back(HeaderLine{"Content-Type", "application/json"});
  if (!organization.empty()) {
    out.headers.push_back(HeaderLine{"OpenAI-Organization", std::move(organization)});
  }
  if (!project.empty()) {
    out.headers.push_back(HeaderLine{"OpenAI-Project", std::move(project)});
  }
  if (!read_extra_headers(cfg, out, error)) {
    return std::nullopt;
  }
  return out;
}

}  // namespace mgw::openai
