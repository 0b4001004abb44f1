#include "auth/jwt/factory.h"

#include "auth/jwt/http_keyset_source.h"

#include <Poco/Exception.h>
#include <Poco/URI.h>

#include <stdexcept>

namespace modelgw::auth::jwt {

std::shared_ptr<Validator> make_validator(const config::AuthConfig& auth,
                                          const upstream::ProxyEnvironment& proxies) {
  if (auth.jwks_url.empty()) return nullptr;

  HttpFetchOptions fetch;
  fetch.url = auth.jwks_url;
  fetch.timeout = std::chrono::milliseconds(auth.jwks_timeout_ms);
  fetch.ca_file = auth.jwks_ca_file;
  std::unique_ptr<HttpKeysetSource> source;
  try {
    const Poco::URI uri(auth.jwks_url);
    upstream::UpstreamUrl url;
    url.https = uri.getScheme() == "https";
    url.host = uri.getHost();
    url.port = uri.getPort();
    fetch.proxy = upstream::proxy_for(url, proxies);
    source = std::make_unique<HttpKeysetSource>(fetch);
  } catch (const Poco::Exception& e) {
    throw config::ConfigError("auth.jwks_url: not a valid URL: " + e.message());
  } catch (const std::invalid_argument& e) {
    throw config::ConfigError("auth.jwks_url: " + std::string(e.what()));
  } catch (const std::runtime_error& e) {
    throw config::ConfigError("auth.jwks_ca_file: " + std::string(e.what()));
  }

  KeysetCacheOptions cache;
  cache.default_ttl = std::chrono::milliseconds(auth.jwks_default_ttl_ms);
  cache.max_ttl = std::chrono::milliseconds(auth.jwks_max_ttl_ms);
  cache.refresh_min_interval = std::chrono::milliseconds(auth.jwks_refresh_min_interval_ms);
  // A fetch takes at most the connect timeout plus twice the read bound
  // (HttpKeysetSource); waiters give it that and a second more.
  cache.max_wait = 3 * fetch.timeout + std::chrono::seconds(1);
  cache.source_host = source->host();

  ValidatorOptions options;
  options.issuer = auth.issuer;
  options.audience = auth.audience;
  options.tenant_claim = auth.tenant_claim;
  options.scope_claim = auth.scope_claim;
  options.leeway = std::chrono::seconds(auth.leeway_s);
  options.algorithms = auth.algorithms;
  options.max_token_bytes = auth.max_token_bytes;

  return std::make_shared<Validator>(std::move(options),
                                     std::make_shared<KeysetCache>(std::move(source), std::move(cache)));
}

}  // namespace modelgw::auth::jwt
