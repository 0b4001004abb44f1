#include "auth/authenticator.h"
#include "auth/api_key.h"
#include "storage_fixture.h"

#include <gtest/gtest.h>

#include <thread>

namespace {

using modelgw::auth::Authenticator;
using modelgw::auth::Principal;
using modelgw::errors::ApiError;

struct Minted {
  std::string key;
  std::int64_t id;
};

Minted mint(modelgw::plugins::Storage& s, std::int64_t tenant, const std::string& scopes) {
  Minted m{modelgw::auth::mint_api_key(), 0};
  modelgw::plugins::ApiKeyRow row;
  row.tenant_id = tenant;
  row.key_hash = modelgw::auth::hash_api_key(m.key);
  row.display_prefix = modelgw::auth::display_prefix(m.key);
  row.scopes = scopes;
  row.created_unix_ms = 1;
  m.id = s.create_api_key(row);
  return m;
}

std::string code_of(const std::variant<Principal, ApiError>& r) {
  return std::holds_alternative<ApiError>(r) ? std::get<ApiError>(r).code : "ok";
}

TEST(Authenticator, AcceptsAValidKeyAndAttributesTheTenant) {
  modelgw::testing::TempStorage t;
  auto tenant = t.storage->create_tenant("acme", 1);
  auto k = mint(*t.storage, tenant, "chat");
  Authenticator auth(*t.storage, 1000);
  auto r = auth.authenticate("Bearer " + k.key);
  ASSERT_TRUE(std::holds_alternative<Principal>(r));
  EXPECT_EQ(std::get<Principal>(r).tenant_id, tenant);
  EXPECT_EQ(std::get<Principal>(r).tenant_name, "acme");
  EXPECT_EQ(std::get<Principal>(r).key_id, k.id);
  EXPECT_EQ(code_of(auth.authenticate("bearer  " + k.key + " ")), "ok");
}

TEST(Authenticator, RejectsMissingMalformedAndUnknownKeys) {
  modelgw::testing::TempStorage t;
  Authenticator auth(*t.storage, 1000);
  auto missing = auth.authenticate("");
  ASSERT_TRUE(std::holds_alternative<ApiError>(missing));
  EXPECT_EQ(std::get<ApiError>(missing).status, 401);
  EXPECT_EQ(code_of(missing), "missing_api_key");
  EXPECT_EQ(code_of(auth.authenticate("Bearer ")), "missing_api_key");
  EXPECT_EQ(code_of(auth.authenticate("Basic dXNlcjpwYXNz")), "invalid_api_key");
  EXPECT_EQ(code_of(auth.authenticate("Bearer sk-mgw-unknown")), "invalid_api_key");
  EXPECT_EQ(code_of(auth.authenticate("Bearer " + std::string(100000, 'x'))), "invalid_api_key");
}

TEST(Authenticator, RevocationTakesEffectWithinTheCacheTtl) {
  modelgw::testing::TempStorage t;
  auto k = mint(*t.storage, t.storage->create_tenant("acme", 1), "chat");
  Authenticator auth(*t.storage, 150);
  EXPECT_EQ(code_of(auth.authenticate("Bearer " + k.key)), "ok");
  ASSERT_TRUE(t.storage->revoke_api_key(k.id, 2));
  EXPECT_EQ(code_of(auth.authenticate("Bearer " + k.key)), "ok");  // still cached
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(code_of(auth.authenticate("Bearer " + k.key)), "invalid_api_key");
}

TEST(Authenticator, WithoutCacheEveryCallSeesStorage) {
  modelgw::testing::TempStorage t;
  auto k = mint(*t.storage, t.storage->create_tenant("acme", 1), "chat");
  Authenticator auth(*t.storage, 0);
  EXPECT_EQ(code_of(auth.authenticate("Bearer " + k.key)), "ok");
  t.storage->revoke_api_key(k.id, 2);
  EXPECT_EQ(code_of(auth.authenticate("Bearer " + k.key)), "invalid_api_key");
}

TEST(Authenticator, ABearerValueWithADotIsAJwtAndRefusedWhileJwtsAreOff) {
  modelgw::testing::TempStorage t;
  Authenticator auth(*t.storage, 1000);
  auto r = auth.authenticate("Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln");
  ASSERT_TRUE(std::holds_alternative<ApiError>(r));
  EXPECT_EQ(std::get<ApiError>(r).status, 401);
  EXPECT_EQ(code_of(r), "invalid_api_key");
  EXPECT_EQ(
      std::get<ApiError>(r).message,
      "this gateway accepts API keys only: JWT bearer tokens are not enabled (auth.jwks_url is not set)");
  // Long JWTs are not cut off by the API key length limit.
  EXPECT_EQ(std::get<ApiError>(auth.authenticate("Bearer " + std::string(4000, 'a') + ".b.c")).message,
            std::get<ApiError>(r).message);
}

}  // namespace
