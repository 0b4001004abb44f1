// The JWT branch of the Authenticator: a real sqlite store for tenants, a
// validator over a scripted keyset.
#include "../storage_fixture.h"
#include "auth/api_key.h"
#include "auth/authenticator.h"
#include "fake_source.h"
#include "test_keys.h"

#include <gtest/gtest.h>

namespace {

using modelgw::auth::Authenticator;
using modelgw::auth::Principal;
using modelgw::auth::jwt::KeysetCache;
using modelgw::auth::jwt::Validator;
using modelgw::auth::jwt::ValidatorOptions;
using modelgw::errors::ApiError;
namespace t = modelgw::testing::jwt;

std::shared_ptr<Validator> make_validator(std::shared_ptr<t::Script> script) {
  ValidatorOptions o;
  o.issuer = "https://idp.example";
  o.audience = "modelgw";
  auto cache = std::make_shared<KeysetCache>(std::make_unique<t::ScriptedSource>(std::move(script)),
                                             t::cache_options());
  return std::make_shared<Validator>(o, cache, [] { return t::wall_time(t::kNow); });
}

class AuthenticatorJwt : public ::testing::Test {
 protected:
  AuthenticatorJwt() { script->answer(t::document(t::jwks({t::public_jwk(t::rsa_key())}))); }

  std::shared_ptr<t::Script> script = std::make_shared<t::Script>();
  modelgw::testing::TempStorage store;
};

TEST_F(AuthenticatorJwt, RefusesJwtsWhenTheyAreNotEnabled) {
  Authenticator auth(*store.storage, 1000);
  auto r = auth.authenticate("Bearer " + t::make_token(t::rsa_key(), "RS256", t::good_claims()));
  ASSERT_TRUE(std::holds_alternative<ApiError>(r));
  EXPECT_EQ(std::get<ApiError>(r).status, 401);
  EXPECT_EQ(std::get<ApiError>(r).code, "invalid_api_key");
  EXPECT_EQ(
      std::get<ApiError>(r).message,
      "this gateway accepts API keys only: JWT bearer tokens are not enabled (auth.jwks_url is not set)");
}

TEST_F(AuthenticatorJwt, AValidTokenBecomesAPrincipalOfItsTenant) {
  const auto tenant = store.storage->create_tenant("acme", 1);
  Authenticator auth(*store.storage, 1000, make_validator(script));
  auto r = auth.authenticate("Bearer " + t::make_token(t::rsa_key(), "RS256", t::good_claims()));
  ASSERT_TRUE(std::holds_alternative<Principal>(r)) << std::get<ApiError>(r).message;
  const auto& p = std::get<Principal>(r);
  EXPECT_EQ(p.tenant_id, tenant);
  EXPECT_EQ(p.tenant_name, "acme");
  EXPECT_EQ(p.key_id, 0);
  EXPECT_EQ(p.scopes, "chat models:read");
  EXPECT_EQ(p.subject, "user-42");
  EXPECT_TRUE(p.has_scope("chat"));
  EXPECT_FALSE(p.has_scope("usage:read"));
}

TEST_F(AuthenticatorJwt, AnUnknownTenantIsForbiddenAndTheAnswerIsCached) {
  Authenticator auth(*store.storage, 60000, make_validator(script));
  auto claims = t::good_claims();
  claims["tenant"] = "initech";
  const std::string header = "Bearer " + t::make_token(t::rsa_key(), "RS256", claims);
  auto r = auth.authenticate(header);
  ASSERT_TRUE(std::holds_alternative<ApiError>(r));
  EXPECT_EQ(std::get<ApiError>(r).status, 403);
  EXPECT_EQ(std::get<ApiError>(r).code, "permission_denied");
  EXPECT_EQ(std::get<ApiError>(r).message, "the token's tenant 'initech' is not known to this gateway");
  store.storage->create_tenant("initech", 1);
  // The negative answer holds for the cache TTL, as for API keys.
  EXPECT_TRUE(std::holds_alternative<ApiError>(auth.authenticate(header)));
  Authenticator fresh(*store.storage, 60000, make_validator(script));
  EXPECT_TRUE(std::holds_alternative<Principal>(fresh.authenticate(header)));
}

TEST_F(AuthenticatorJwt, PassesValidatorErrorsThrough) {
  store.storage->create_tenant("acme", 1);
  Authenticator auth(*store.storage, 1000, make_validator(script));
  auto r = auth.authenticate("Bearer a.b");
  ASSERT_TRUE(std::holds_alternative<ApiError>(r));
  EXPECT_EQ(std::get<ApiError>(r).status, 401);
  EXPECT_EQ(std::get<ApiError>(r).message.rfind("the bearer token is not a well-formed JWT: ", 0), 0u);

  auto down = std::make_shared<t::Script>();
  down->answer(t::failure());
  Authenticator unavailable(*store.storage, 1000, make_validator(down));
  auto d = unavailable.authenticate("Bearer " + t::make_token(t::rsa_key(), "RS256", t::good_claims()));
  ASSERT_TRUE(std::holds_alternative<ApiError>(d));
  EXPECT_EQ(std::get<ApiError>(d).status, 503);
  EXPECT_EQ(std::get<ApiError>(d).code, "jwks_unavailable");
}

TEST_F(AuthenticatorJwt, ApiKeysStillWorkBesideJwts) {
  const auto tenant = store.storage->create_tenant("acme", 1);
  const std::string key = modelgw::auth::mint_api_key();
  modelgw::plugins::ApiKeyRow row;
  row.tenant_id = tenant;
  row.key_hash = modelgw::auth::hash_api_key(key);
  row.display_prefix = modelgw::auth::display_prefix(key);
  row.scopes = "chat";
  row.created_unix_ms = 1;
  const auto id = store.storage->create_api_key(row);
  Authenticator auth(*store.storage, 1000, make_validator(script));
  auto r = auth.authenticate("Bearer " + key);
  ASSERT_TRUE(std::holds_alternative<Principal>(r));
  EXPECT_EQ(std::get<Principal>(r).key_id, id);
  EXPECT_EQ(std::get<Principal>(r).subject, "");
  EXPECT_EQ(script->calls, 0);  // an API key never touches the keyset
}

}  // namespace
