#include "auth/jwt/validator.h"
#include "fake_source.h"
#include "test_keys.h"

#include <gtest/gtest.h>

namespace {

using modelgw::auth::jwt::KeysetCache;
using modelgw::auth::jwt::Validator;
using modelgw::auth::jwt::ValidatorOptions;
using modelgw::auth::jwt::VerifiedToken;
using modelgw::errors::ApiError;
using nlohmann::json;
namespace t = modelgw::testing::jwt;

class ValidatorTest : public ::testing::Test {
 protected:
  ValidatorTest() {
    script->answer(t::document(t::jwks({t::public_jwk(t::rsa_key()), t::public_jwk(t::rsa_key_2(), "RS512"),
                                        t::public_jwk(t::ec256_key()), t::public_jwk(t::ec384_key())})));
    options.issuer = "https://idp.example";
    options.audience = "modelgw";
  }

  Validator& validator() {
    if (!validator_) {
      auto cache = std::make_shared<KeysetCache>(std::make_unique<t::ScriptedSource>(script),
                                                 t::cache_options(), clock.function());
      validator_ = std::make_unique<Validator>(options, cache, [this] { return t::wall_time(now); });
    }
    return *validator_;
  }

  std::variant<VerifiedToken, ApiError> validate(const std::string& token) {
    return validator().validate(token);
  }

  // Asserts a 401 invalid_api_key whose message contains `expected` and no
  // segment of the token.
  void expect_refused(const std::string& token, const std::string& expected) {
    auto r = validate(token);
    ASSERT_TRUE(std::holds_alternative<ApiError>(r)) << "accepted; expected: " << expected;
    const auto& e = std::get<ApiError>(r);
    EXPECT_EQ(e.status, 401);
    EXPECT_EQ(e.code, "invalid_api_key");
    EXPECT_NE(e.message.find(expected), std::string::npos) << e.message;
    std::string_view rest = token;
    while (!rest.empty()) {
      const auto dot = rest.find('.');
      const auto segment = rest.substr(0, dot);
      if (segment.size() >= 8) {
        EXPECT_EQ(e.message.find(segment), std::string::npos) << "message quotes the token";
      }
      if (dot == std::string_view::npos) break;
      rest.remove_prefix(dot + 1);
    }
  }

  VerifiedToken expect_accepted(const std::string& token) {
    auto r = validate(token);
    if (auto* e = std::get_if<ApiError>(&r)) {
      ADD_FAILURE() << "refused: " << e->message;
      return {};
    }
    return std::get<VerifiedToken>(r);
  }

  std::shared_ptr<t::Script> script = std::make_shared<t::Script>();
  t::ManualClock clock;
  ValidatorOptions options;
  std::int64_t now = t::kNow;

 private:
  std::unique_ptr<Validator> validator_;
};

struct AlgCase {
  const char* alg;
  const t::KeyPair& (*key)();
};

class EveryAlgorithm : public ValidatorTest, public ::testing::WithParamInterface<AlgCase> {};

TEST_P(EveryAlgorithm, IsAccepted) {
  const auto& c = GetParam();
  auto v = expect_accepted(t::make_token(c.key(), c.alg, t::good_claims()));
  EXPECT_EQ(v.tenant, "acme");
  EXPECT_EQ(v.subject, "user-42");
  EXPECT_EQ(v.scopes, "chat models:read");
  EXPECT_EQ(v.kid, c.key().kid);
}

INSTANTIATE_TEST_SUITE_P(Jws, EveryAlgorithm,
                         ::testing::Values(AlgCase{"RS256", t::rsa_key}, AlgCase{"RS384", t::rsa_key},
                                           AlgCase{"RS512", t::rsa_key}, AlgCase{"PS256", t::rsa_key},
                                           AlgCase{"PS384", t::rsa_key}, AlgCase{"PS512", t::rsa_key},
                                           AlgCase{"ES256", t::ec256_key}, AlgCase{"ES384", t::ec384_key}),
                         [](const auto& info) { return std::string(info.param.alg); });

TEST_F(ValidatorTest, RefusesAlgorithmsOutsideTheAllowList) {
  options.algorithms = {"ES256"};
  expect_refused(t::make_token(t::rsa_key(), "RS256", t::good_claims()),
                 "the token's algorithm 'RS256' is not accepted here (ES256)");
  expect_accepted(t::make_token(t::ec256_key(), "ES256", t::good_claims()));
}

TEST_F(ValidatorTest, RefusesAlgNoneWhateverTheSignature) {
  const json header = {{"alg", "none"}, {"kid", "rsa-1"}};
  const std::string input = t::signing_input(header, t::good_claims());
  expect_refused(input + ".", "the token's algorithm 'none' is refused");
  expect_refused(input + "." + t::base64url_encode("anything"), "is refused");
  const json upper = {{"alg", "NONE"}, {"kid", "rsa-1"}};
  expect_refused(t::signing_input(upper, t::good_claims()) + ".", "'NONE' is refused");
}

TEST_F(ValidatorTest, RefusesHmacSignedWithThePublicKeyEvenWhenConfigured) {
  options.algorithms = {"RS256", "HS256"};  // the loader refuses this; the validator must too
  expect_refused(t::hmac_token("rsa-1", t::good_claims(), t::public_pem(t::rsa_key())),
                 "the token's algorithm 'HS256' is refused");
}

TEST_F(ValidatorTest, RefusesAHeaderWithoutAlgOrKid) {
  const json no_alg = {{"kid", "rsa-1"}};
  const std::string input = t::signing_input(no_alg, t::good_claims());
  expect_refused(input + "." + t::base64url_encode(t::sign(t::rsa_key(), "RS256", input)),
                 "its header has no 'alg'");
  const json no_kid = {{"alg", "RS256"}};
  const std::string input2 = t::signing_input(no_kid, t::good_claims());
  expect_refused(input2 + "." + t::base64url_encode(t::sign(t::rsa_key(), "RS256", input2)),
                 "the token's header names no signing key (kid)");
}

TEST_F(ValidatorTest, RefusesCriticalExtensionsAndOtherTokenTypes) {
  expect_refused(t::make_token(t::rsa_key(), "RS256", t::good_claims(), {{"crit", {"exp"}}}),
                 "critical extensions (crit)");
  expect_refused(t::make_token(t::rsa_key(), "RS256", t::good_claims(), {{"typ", "dpop+jwt"}}),
                 "the token's type (typ header) is not 'JWT' or 'at+jwt'");
  expect_accepted(t::make_token(t::rsa_key(), "RS256", t::good_claims(), {{"typ", "at+jwt"}}));
  expect_accepted(t::make_token(t::rsa_key(), "RS256", t::good_claims(), {{"typ", "application/at+JWT"}}));
}

TEST_F(ValidatorTest, RefusesAKidNotInTheKeyset) {
  t::KeyPair stranger{t::rsa_key().key, "rotated-away", "RSA", ""};
  expect_refused(t::make_token(stranger, "RS256", t::good_claims()),
                 "the token's signing key (kid 'rotated-away') is not in the identity provider's keyset");
}

TEST_F(ValidatorTest, RefusesASignatureFromAnotherKeyUnderAKnownKid) {
  t::KeyPair impostor{t::rsa_key_2().key, "rsa-1", "RSA", ""};
  expect_refused(t::make_token(impostor, "RS256", t::good_claims()),
                 "the token's signature does not verify with the identity provider's key 'rsa-1'");
}

TEST_F(ValidatorTest, RefusesAnAlgDifferentFromTheKeysPinnedAlg) {
  expect_refused(t::make_token(t::rsa_key_2(), "RS256", t::good_claims()),
                 "the identity provider's key 'rsa-2' is for algorithm 'RS512', but the token says 'RS256'");
  expect_accepted(t::make_token(t::rsa_key_2(), "RS512", t::good_claims()));
}

TEST_F(ValidatorTest, RefusesAKeyTypeThatDoesNotFitTheAlg) {
  t::KeyPair ec_as_rsa{t::rsa_key().key, "ec-256", "RSA", ""};  // signs with RSA, names the EC key
  expect_refused(t::make_token(ec_as_rsa, "RS256", t::good_claims()),
                 "the identity provider's key 'ec-256' is an EC key, which cannot verify RS256 signatures");
  t::KeyPair rsa_as_ec{t::ec256_key().key, "rsa-1", "EC", "P-256"};
  expect_refused(t::make_token(rsa_as_ec, "ES256", t::good_claims()),
                 "the identity provider's key 'rsa-1' is an RSA key, which cannot verify ES256 signatures");
}

TEST_F(ValidatorTest, RefusesTheWrongCurve) {
  t::KeyPair p384_named_p256{t::ec384_key().key, "ec-256", "EC", "P-384"};
  expect_refused(
      t::make_token(p384_named_p256, "ES384", t::good_claims()),
      "the identity provider's key 'ec-256' is an EC P-256 key, which cannot verify ES384 signatures "
      "(they need P-384)");
}

TEST_F(ValidatorTest, RefusesTamperedClaimsAndSignatures) {
  for (const char* alg : {"RS256", "PS256", "ES256"}) {
    const auto& key = std::string(alg) == "ES256" ? t::ec256_key() : t::rsa_key();
    const std::string token = t::make_token(key, alg, t::good_claims());
    const auto first = token.find('.');
    const auto second = token.find('.', first + 1);
    auto claims = t::good_claims();
    claims["tenant"] = "someone-else";
    const std::string tampered_claims =
        token.substr(0, first + 1) + t::base64url_encode(claims.dump()) + token.substr(second);
    expect_refused(tampered_claims, "the token's signature does not verify");

    // Signature bytes changed, then encoded again, so only the signature is wrong.
    auto signature = *modelgw::util::base64url_decode(token.substr(second + 1));
    std::string flipped = signature;
    flipped[10] = static_cast<char>(flipped[10] ^ 0x01);
    expect_refused(token.substr(0, second + 1) + t::base64url_encode(flipped),
                   "the token's signature does not verify");
    const std::string truncated = signature.substr(0, signature.size() - 3);
    expect_refused(token.substr(0, second + 1) + t::base64url_encode(truncated),
                   "the token's signature does not verify");
    expect_refused(token.substr(0, second + 1), "the token's signature does not verify");  // empty signature
  }
}

TEST_F(ValidatorTest, ChecksExpiryWithLeeway) {
  auto claims = t::good_claims();
  claims["exp"] = t::kNow - 61;
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims), "the token expired at 2026-11-22T05:58:59Z");
  claims["exp"] = t::kNow - 59;  // within the 60 s leeway
  expect_accepted(t::make_token(t::rsa_key(), "RS256", claims));
  options.leeway = std::chrono::seconds(0);
  claims["exp"] = t::kNow;
  // a new validator with no leeway
  auto cache = std::make_shared<KeysetCache>(std::make_unique<t::ScriptedSource>(script), t::cache_options(),
                                             clock.function());
  Validator strict(options, cache, [] { return t::wall_time(t::kNow); });
  auto r = strict.validate(t::make_token(t::rsa_key(), "RS256", claims));
  ASSERT_TRUE(std::holds_alternative<ApiError>(r));
  EXPECT_EQ(std::get<ApiError>(r).message, "the token expired at 2026-11-22T06:00:00Z; get a new one");
}

TEST_F(ValidatorTest, RequiresANumericExpiry) {
  auto claims = t::good_claims();
  claims.erase("exp");
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims), "the token has no expiry (exp claim)");
  claims["exp"] = "tomorrow";
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims),
                 "the token's expiry (exp claim) must be a number of seconds since 1970");
  claims["exp"] = static_cast<double>(t::kNow) + 0.5;
  expect_accepted(t::make_token(t::rsa_key(), "RS256", claims));
}

TEST_F(ValidatorTest, ChecksNotBeforeAndIssuedAtWithLeeway) {
  auto claims = t::good_claims();
  claims["nbf"] = t::kNow + 3600;
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims),
                 "the token is not valid before 2026-11-22T07:00:00Z");
  claims["nbf"] = t::kNow + 30;
  expect_accepted(t::make_token(t::rsa_key(), "RS256", claims));
  claims["iat"] = t::kNow + 3600;
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims),
                 "issued in the future, at 2026-11-22T07:00:00Z");
  claims["iat"] = "now";
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims), "(iat claim) must be a number");
}

TEST_F(ValidatorTest, ChecksIssuer) {
  auto claims = t::good_claims();
  claims["iss"] = "https://evil.example";
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims),
                 "the token's issuer 'https://evil.example' is not the one this gateway trusts "
                 "('https://idp.example')");
  claims.erase("iss");
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims), "the token names no issuer (iss claim)");
}

TEST_F(ValidatorTest, ChecksAudienceAsStringOrArray) {
  auto claims = t::good_claims();
  claims["aud"] = "another-api";
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims),
                 "the token's audience (aud) does not include 'modelgw'");
  claims["aud"] = {"another-api", "modelgw"};
  expect_accepted(t::make_token(t::rsa_key(), "RS256", claims));
  claims["aud"] = {"another-api", 7};
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims), "does not include 'modelgw'");
  claims["aud"] = 7;
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims), "the token names no audience (aud claim");
  claims.erase("aud");
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims), "the token names no audience");
}

TEST_F(ValidatorTest, RequiresTheTenantClaim) {
  auto claims = t::good_claims();
  claims.erase("tenant");
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims),
                 "the token has no 'tenant' claim naming the tenant");
  claims["tenant"] = "";
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims),
                 "the token's 'tenant' claim must be a non-empty string naming the tenant");
  claims["tenant"] = {"acme"};
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims), "must be a non-empty string");
}

TEST_F(ValidatorTest, ReadsConfiguredTenantAndScopeClaims) {
  options.tenant_claim = "https://modelgw/tenant";
  options.scope_claim = "scp";
  auto claims = t::good_claims();
  claims["https://modelgw/tenant"] = "globex";
  claims["scp"] = {"chat", "usage:read"};
  auto v = expect_accepted(t::make_token(t::rsa_key(), "RS256", claims));
  EXPECT_EQ(v.tenant, "globex");
  EXPECT_EQ(v.scopes, "chat usage:read");
}

TEST_F(ValidatorTest, ReadsScopesAsStringArrayOrNothing) {
  auto claims = t::good_claims();
  claims["scope"] = "  chat   admin ";
  EXPECT_EQ(expect_accepted(t::make_token(t::rsa_key(), "RS256", claims)).scopes, "chat admin");
  claims["scope"] = {"chat", "models:read"};
  EXPECT_EQ(expect_accepted(t::make_token(t::rsa_key(), "RS256", claims)).scopes, "chat models:read");
  claims.erase("scope");
  EXPECT_EQ(expect_accepted(t::make_token(t::rsa_key(), "RS256", claims)).scopes, "");
  claims["scope"] = 5;
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims),
                 "the token's 'scope' claim must be a space-separated string or an array of strings");
  claims["scope"] = {"chat", 5};
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims), "must be a space-separated string");
}

TEST_F(ValidatorTest, SubjectIsOptional) {
  auto claims = t::good_claims();
  claims.erase("sub");
  EXPECT_EQ(expect_accepted(t::make_token(t::rsa_key(), "RS256", claims)).subject, "");
  claims["sub"] = 42;
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims),
                 "the token's subject (sub claim) must be a string");
}

TEST_F(ValidatorTest, RefusesMalformedTokensOfEveryKind) {
  const std::string good = t::make_token(t::rsa_key(), "RS256", t::good_claims());
  const std::string prefix = "the bearer token is not a well-formed JWT: ";
  expect_refused("a.b", prefix + "it has 2 dot-separated segments");
  expect_refused("abc.", prefix + "it has 2 dot-separated segments");
  expect_refused(good + ".more", prefix + "it has 4 dot-separated segments");
  expect_refused("....", prefix + "it has 5 dot-separated segments");
  expect_refused("!!.??.**", prefix + "the header segment is not base64url without padding");
  expect_refused(t::base64url_encode("{\"alg\":\"RS256\"}") + "=" + good.substr(good.find('.')),
                 prefix + "the header segment is not base64url");
  expect_refused(t::base64url_encode("alg: RS256") + good.substr(good.find('.')),
                 prefix + "the header is not JSON");
  expect_refused(t::base64url_encode("\"RS256\"") + good.substr(good.find('.')),
                 prefix + "the header is not a JSON object");
  expect_refused(
      good.substr(0, good.find('.') + 1) + t::base64url_encode("[]") + good.substr(good.rfind('.')),
      prefix + "the claims is not a JSON object");
  expect_refused(good + std::string(8192, 'A'), prefix + "it is ");
  expect_refused(good + std::string(8192, 'A'), "above the limit of 8192");
}

TEST_F(ValidatorTest, HonoursTheConfiguredTokenSizeLimit) {
  options.max_token_bytes = 600;
  auto claims = t::good_claims();
  claims["padding"] = std::string(600, 'x');
  expect_refused(t::make_token(t::rsa_key(), "RS256", claims), "above the limit of 600");
}

TEST_F(ValidatorTest, AnswersJwksUnavailableWhenTheKeysCannotBeFetched) {
  script->answer(t::failure());
  auto r = validate(t::make_token(t::rsa_key(), "RS256", t::good_claims()));
  ASSERT_TRUE(std::holds_alternative<ApiError>(r));
  const auto& e = std::get<ApiError>(r);
  EXPECT_EQ(e.status, 503);
  EXPECT_EQ(e.code, "jwks_unavailable");
  EXPECT_EQ(e.type(), "api_error");
  EXPECT_EQ(e.message, "the gateway could not fetch the signing keys from idp.example; retry shortly");
  EXPECT_TRUE(e.retryable);
  EXPECT_EQ(e.retry_after_s, 10);
}

TEST(ClaimsTime, FormatsUnixTimeAsUtc) {
  EXPECT_EQ(modelgw::auth::jwt::format_unix_time(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(modelgw::auth::jwt::format_unix_time(t::kNow + 0.9), "2026-11-22T06:00:00Z");
  EXPECT_NE(modelgw::auth::jwt::format_unix_time(1e300).find("seconds since 1970"), std::string::npos);
}

}  // namespace
