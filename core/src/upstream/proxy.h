// Which upstreams go through an HTTP proxy, from the environment variables
// operators already set for curl and every other tool: HTTPS_PROXY for https
// upstreams, HTTP_PROXY for http ones (lower-case names too, which win, as in
// curl), and NO_PROXY for the hosts that bypass it. Read once at start-up.
#pragma once

#include "upstream/upstream_url.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace Poco::Net {
class HTTPClientSession;
}

namespace modelgw::upstream {

struct ProxySettings {
  std::string host;
  std::uint16_t port = 1080;  // curl's default when the URL names none
  std::string username;       // percent-decoded; never logged
  std::string password;
};

struct ProxyEnvironment {
  std::string https_proxy;  // raw values, e.g. "http://user:pw@proxy:3128"
  std::string http_proxy;
  std::string no_proxy;  // "localhost,.internal,10.0.0.0/8,*"

  static ProxyEnvironment from_process();
};

// Parses "http://[user[:password]@]host[:port][/]" (the scheme may be left
// out). Throws std::invalid_argument naming what is wrong, never the password.
ProxySettings parse_proxy_url(const std::string& url);

// True when NO_PROXY exempts host:port: "*" matches everything; "example.com"
// and ".example.com" match that host and its subdomains; an IP literal matches
// itself, "10.0.0.0/8" the IPv4 addresses it covers; "host:port" only that port.
bool no_proxy_matches(const std::string& no_proxy, const std::string& host, std::uint16_t port);

// The proxy to use for `url`, or none.
std::optional<ProxySettings> proxy_for(const UpstreamUrl& url, const ProxyEnvironment& env);

// Points `session` at `proxy` (HTTPS is then tunnelled with CONNECT).
void use_proxy(Poco::Net::HTTPClientSession& session, const ProxySettings& proxy);

}  // namespace modelgw::upstream
