#include "upstream/proxy.h"

#include <Poco/Net/HTTPClientSession.h>

#include <Poco/URI.h>

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace modelgw::upstream {
namespace {

std::string env(const char* lower, const char* upper) {
  // Lower case first, as curl does: HTTP_PROXY in upper case can be set by a
  // CGI client through the Proxy header ("httpoxy"), so curl ignores it.
  if (const char* v = std::getenv(lower); v != nullptr && *v != '\0') return v;
  if (const char* v = std::getenv(upper); v != nullptr && *v != '\0') return v;
  return {};
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<std::uint32_t> ipv4(const std::string& text) {
  in_addr a{};
  if (::inet_pton(AF_INET, text.c_str(), &a) != 1) return std::nullopt;
  return ntohl(a.s_addr);
}

bool cidr_matches(const std::string& entry, const std::string& host) {
  const auto slash = entry.find('/');
  auto net = ipv4(entry.substr(0, slash));
  auto addr = ipv4(host);
  if (!net || !addr) return false;
  unsigned bits = 0;
  const std::string_view b = std::string_view(entry).substr(slash + 1);
  auto [p, ec] = std::from_chars(b.data(), b.data() + b.size(), bits);
  if (ec != std::errc() || p != b.data() + b.size() || bits > 32) return false;
  const std::uint32_t mask = bits == 0 ? 0 : ~std::uint32_t{0} << (32 - bits);
  return (*net & mask) == (*addr & mask);
}

}  // namespace

ProxyEnvironment ProxyEnvironment::from_process() {
  ProxyEnvironment e;
  e.https_proxy = env("https_proxy", "HTTPS_PROXY");
  e.http_proxy = env("http_proxy", "HTTP_PROXY");
  e.no_proxy = env("no_proxy", "NO_PROXY");
  return e;
}

ProxySettings parse_proxy_url(const std::string& raw) {
  std::string_view url = trim(raw);
  if (const auto sep = url.find("://"); sep != std::string_view::npos) {
    const std::string scheme = lower(url.substr(0, sep));
    // A scheme is a letter, then letters, digits, + - . (RFC 3986). Anything
    // else before "://" is user info, maybe the password: never echo it.
    const bool is_scheme = !scheme.empty() && std::isalpha(static_cast<unsigned char>(scheme.front())) &&
                           std::all_of(scheme.begin(), scheme.end(), [](unsigned char c) {
                             return std::isalnum(c) || c == '+' || c == '-' || c == '.';
                           });
    if (!is_scheme) throw std::invalid_argument("the proxy URL is malformed before '://'");
    if (scheme != "http") {
      throw std::invalid_argument("proxy scheme '" + scheme +
                                  "' is not supported; use an http:// proxy (HTTPS upstreams are "
                                  "tunnelled through it with CONNECT)");
    }
    url.remove_prefix(sep + 3);
  }
  url = url.substr(0, url.find('/'));
  ProxySettings p;
  if (const auto at = url.rfind('@'); at != std::string_view::npos) {
    const std::string_view info = url.substr(0, at);
    const auto colon = info.find(':');
    Poco::URI::decode(std::string(info.substr(0, colon)), p.username);
    if (colon != std::string_view::npos) Poco::URI::decode(std::string(info.substr(colon + 1)), p.password);
    url.remove_prefix(at + 1);
  }
  std::string_view port_text;
  if (!url.empty() && url.front() == '[') {
    const auto close = url.find(']');
    if (close == std::string_view::npos) throw std::invalid_argument("the proxy's IPv6 address lacks ']'");
    p.host = std::string(url.substr(1, close - 1));
    if (close + 1 < url.size()) {
      if (url[close + 1] != ':') throw std::invalid_argument("unexpected text after the proxy's address");
      port_text = url.substr(close + 2);
    }
  } else {
    const auto colon = url.rfind(':');
    p.host = std::string(url.substr(0, colon));
    if (colon != std::string_view::npos) port_text = url.substr(colon + 1);
  }
  if (p.host.empty()) throw std::invalid_argument("the proxy address names no host");
  if (!port_text.empty()) {
    unsigned port = 0;
    auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || ptr != port_text.data() + port_text.size() || port == 0 || port > 65535) {
      throw std::invalid_argument("the proxy port must be a number from 1 to 65535");
    }
    p.port = static_cast<std::uint16_t>(port);
  }
  return p;
}

bool no_proxy_matches(const std::string& no_proxy, const std::string& host_in, std::uint16_t port) {
  const std::string host = lower(host_in);
  std::string_view rest = no_proxy;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    std::string entry = lower(trim(rest.substr(0, comma)));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (entry.empty()) continue;
    if (entry == "*") return true;
    if (entry.front() == '[') {  // [::1] or [::1]:port
      const auto close = entry.find(']');
      if (close == std::string::npos) continue;
      const std::string addr = entry.substr(1, close - 1);
      if (close + 1 < entry.size() && entry[close + 1] == ':' &&
          entry.substr(close + 2) != std::to_string(port)) {
        continue;
      }
      if (addr == host) return true;
      continue;
    }
    if (entry.find('/') != std::string::npos) {
      if (cidr_matches(entry, host)) return true;
      continue;
    }
    if (const auto colon = entry.rfind(':'); colon != std::string::npos && entry.find(':') == colon) {
      if (entry.substr(colon + 1) != std::to_string(port)) continue;
      entry.resize(colon);
    }
    if (entry.front() == '.') entry.erase(0, 1);
    if (host == entry) return true;
    if (host.size() > entry.size() && host.compare(host.size() - entry.size(), entry.size(), entry) == 0 &&
        host[host.size() - entry.size() - 1] == '.') {
      return true;
    }
  }
  return false;
}

std::optional<ProxySettings> proxy_for(const UpstreamUrl& url, const ProxyEnvironment& env) {
  const std::string& raw = url.https ? env.https_proxy : env.http_proxy;
  if (raw.empty()) return std::nullopt;
  if (no_proxy_matches(env.no_proxy, url.host, url.port)) return std::nullopt;
  return parse_proxy_url(raw);
}

void use_proxy(Poco::Net::HTTPClientSession& session, const ProxySettings& proxy) {
  Poco::Net::HTTPClientSession::ProxyConfig config;
  config.host = proxy.host;
  config.port = proxy.port;
  config.username = proxy.username;
  config.password = proxy.password;
  session.setProxyConfig(config);
}

}  // namespace modelgw::upstream
