#include "auth/jwt/factory.h"
#include "../test_http_server.h"
#include "test_keys.h"

#include <gtest/gtest.h>

namespace {

using modelgw::auth::jwt::make_validator;
using modelgw::auth::jwt::VerifiedToken;
using modelgw::config::AuthConfig;
using modelgw::config::ConfigError;
using modelgw::testing::TestHttpServer;
namespace t = modelgw::testing::jwt;

AuthConfig auth_config(const std::string& url) {
  AuthConfig a;
  a.jwks_url = url;
  a.issuer = "https://idp.example";
  a.audience = "modelgw";
  return a;
}

TEST(JwtFactory, NoUrlMeansNoValidator) {
  EXPECT_EQ(make_validator(AuthConfig{}, {}), nullptr);
}

TEST(JwtFactory, ValidatesATokenAgainstAKeysetServedOverHttp) {
  TestHttpServer server([](auto&, const std::string&, auto& response, const auto&) {
    response.set("Cache-Control", "max-age=300");
    modelgw::testing::answer(response, t::jwks({t::public_jwk(t::ec256_key(), "ES256")}));
  });
  auto validator = make_validator(auth_config(server.base_url() + "/jwks"), {});
  ASSERT_NE(validator, nullptr);
  EXPECT_TRUE(validator->prefetch());
  auto claims = t::good_claims();
  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  claims["iat"] = now;
  claims["exp"] = now + 300;
  auto r = validator->validate(t::make_token(t::ec256_key(), "ES256", claims));
  ASSERT_TRUE(std::holds_alternative<VerifiedToken>(r)) << std::get<modelgw::errors::ApiError>(r).message;
  EXPECT_EQ(std::get<VerifiedToken>(r).tenant, "acme");
  EXPECT_EQ(server.requests(), 1);
}

TEST(JwtFactory, StartsWhenTheProviderIsDown) {
  TestHttpServer server([](auto&, const std::string&, auto& response, const auto&) {
    modelgw::testing::answer(response, "{}", 503);
  });
  auto validator = make_validator(auth_config(server.base_url() + "/jwks"), {});
  ASSERT_NE(validator, nullptr);
  EXPECT_FALSE(validator->prefetch());
  auto r = validator->validate(t::make_token(t::ec256_key(), "ES256", t::good_claims()));
  ASSERT_TRUE(std::holds_alternative<modelgw::errors::ApiError>(r));
  EXPECT_EQ(std::get<modelgw::errors::ApiError>(r).code, "jwks_unavailable");
  EXPECT_EQ(std::get<modelgw::errors::ApiError>(r).message,
            "the gateway could not fetch the signing keys from 127.0.0.1; retry shortly");
}

TEST(JwtFactory, AnUnloadableCaFileIsAConfigError) {
  auto a = auth_config("https://idp.example/jwks");
  a.jwks_ca_file = "/nonexistent/ca.pem";
  try {
    make_validator(a, {});
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("auth.jwks_ca_file: ", 0), 0u) << e.what();
  }
}

}  // namespace
