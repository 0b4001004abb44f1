// The test identity provider (tests/idp/idp_server.mjs, a real OAuth 2.0
// token issuer on oauth2-mock-server) as a child process: started on a free
// port with its keys in a temp file, so stop() and restart() give an outage
// and a recovery on the same port with the same keys. Tokens come from its
// /token endpoint as a client gets them; crafted ones from /_test/sign.
#pragma once

#include "harness/process.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace it {

struct IdentityProviderOptions {
  int jwks_max_age_s = 300;  // Cache-Control: max-age of /jwks
};

class IdentityProvider {
 public:
  // Starts the IdP and waits (bounded) until it listens; throws on failure.
  explicit IdentityProvider(IdentityProviderOptions options = {});
  ~IdentityProvider();  // stops it (SIGTERM, then SIGKILL) and removes its temp dir
  IdentityProvider(const IdentityProvider&) = delete;
  IdentityProvider& operator=(const IdentityProvider&) = delete;

  int port() const { return port_; }
  std::string issuer() const;    // http://127.0.0.1:PORT, the tokens' iss
  std::string jwks_url() const;  // issuer() + "/jwks"

  // POST /token, client credentials over HTTP Basic (secret "<client>-secret";
  // the IdP makes the tenant claim the client id), audience "modelgw".
  // Returns the access_token; throws unless the IdP answers 200.
  std::string token(const std::string& client_id, const std::string& scope = "chat",
                    const std::string& alg = "RS256") const;
  // POST /_test/sign: `claims` signed with the IdP's key for header["alg"]
  // (RS256 when absent; also ES256, HS256 with the RSA public key as secret,
  // or none); header members override {alg, typ, kid}. Throws unless 200.
  std::string sign(const nlohmann::json& header, const nlohmann::json& claims) const;
  // Claims the gateway accepts: iss, aud "modelgw", sub, tenant, scope, and
  // iat/nbf now, exp in ten minutes. Tests change one member to break them.
  nlohmann::json valid_claims(const std::string& tenant, const std::string& scope = "chat") const;
  // The kid of the published key for `alg` ("RS256" or "ES256").
  std::string kid(const std::string& alg) const;
  // How many times /jwks was fetched since the IdP (re)started.
  int jwks_requests() const;

  // SIGTERM and wait for the exit: its port refuses connections afterwards.
  void stop();
  // Starts it again on the same port with the same keys; throws on failure.
  void restart();
  bool running();
  std::string log() const;  // its stderr (one line per request, never a token)

 private:
  void start(int port);

  IdentityProviderOptions options_;
  std::string dir_;
  std::string key_file_;
  int port_ = 0;
  std::unique_ptr<ChildProcess> process_;
};

}  // namespace it
