// Fetches the keyset document over HTTP or HTTPS with POCO: one GET per
// fetch, a fresh connection each time (fetches are minutes apart), TLS
// verified against the system store plus an optional CA file, the response
// capped in size and time.
#pragma once

#include "auth/jwt/keyset_source.h"
#include "auth/jwt/options.h"

#include <Poco/Net/Context.h>

#include <string>

namespace modelgw::auth::jwt {

class HttpKeysetSource final : public KeysetSource {
 public:
  // Throws std::invalid_argument when the URL is not http(s)://host[:port]/path,
  // std::runtime_error when the CA file cannot be loaded (configuration
  // errors, found at start-up).
  explicit HttpKeysetSource(HttpFetchOptions options);

  std::variant<FetchedDocument, FetchFailure> fetch() override;

  // The URL's host, safe to name in messages (the URL may carry credentials).
  const std::string& host() const { return host_; }

 private:
  std::variant<FetchedDocument, FetchFailure> fetch_once();

  HttpFetchOptions options_;
  bool https_ = false;
  std::string host_;
  std::uint16_t port_ = 0;
  std::string path_and_query_;
  Poco::Net::Context::Ptr tls_;
};

}  // namespace modelgw::auth::jwt
