#include "proxy_target.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "http_head.h"

namespace fake_proxy {
namespace {

std::optional<int> parsePort(std::string_view text) {
  int port = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, port);
  if (text.empty() || ec != std::errc() || ptr != end || port < 1 || port > 65535) return std::nullopt;
  return port;
}

bool isHostChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' || c == ':' ||
         c == '[' || c == ']';
}

}  // namespace

std::optional<Authority> parseAuthority(std::string_view text, int defaultPort) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), isHostChar)) return std::nullopt;
  Authority a;
  std::string_view host = text;
  std::string_view port;
  if (text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = text.substr(0, close + 1);
    const auto rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
    }
  } else if (const auto colon = text.rfind(':'); colon != std::string_view::npos) {
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) return std::nullopt;
  }
  if (host.empty()) return std::nullopt;
  a.host = host;
  if (port.empty()) {
    if (defaultPort <= 0 || text.back() == ':') return std::nullopt;
    a.port = defaultPort;
  } else {
    const auto p = parsePort(port);
    if (!p) return std::nullopt;
    a.port = *p;
  }
  return a;
}

std::optional<AbsoluteTarget> parseAbsoluteTarget(std::string_view target) {
  constexpr std::string_view kScheme = "http://";
  if (target.size() <= kScheme.size() || !iequals(target.substr(0, kScheme.size()), kScheme)) {
    return std::nullopt;
  }
  const auto rest = target.substr(kScheme.size());
  const auto pathStart = rest.find_first_of("/?#");
  const auto authorityText = rest.substr(0, pathStart);
  // userinfo ("user@host") is deprecated and easy to misread: refuse it.
  if (authorityText.find('@') != std::string_view::npos) return std::nullopt;
  auto authority = parseAuthority(authorityText, 80);
  if (!authority) return std::nullopt;
  AbsoluteTarget out{std::move(*authority), "/"};
  if (pathStart != std::string_view::npos) {
    auto path = rest.substr(pathStart);
    path = path.substr(0, path.find('#'));  // a fragment is never sent
    if (!path.empty()) out.originForm = path.front() == '/' ? std::string(path) : "/" + std::string(path);
  }
  return out;
}

bool isAllowedOrigin(const Authority& authority) {
  return authority.host == "127.0.0.1" || iequals(authority.host, "localhost");
}

}  // namespace fake_proxy
