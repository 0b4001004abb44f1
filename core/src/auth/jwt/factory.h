// Builds the JWT validator the configuration asks for: the HTTP(S) keyset
// source, the cache and the validator, wired with the auth.* settings.
#pragma once

#include "auth/jwt/validator.h"
#include "config/config.h"
#include "upstream/proxy.h"

#include <memory>

namespace modelgw::auth::jwt {

// nullptr when auth.jwks_url is empty (JWTs disabled). Does not fetch yet
// (see Validator::prefetch). Throws config::ConfigError naming the key for a
// URL or CA file that cannot be used. The keyset is fetched through the
// proxy the environment names for its URL (HTTPS_PROXY, NO_PROXY, ...).
std::shared_ptr<Validator> make_validator(const config::AuthConfig& auth,
                                          const upstream::ProxyEnvironment& proxies);

}  // namespace modelgw::auth::jwt
