#include "auth/jwt/jwk.h"
#include "test_keys.h"

#include <gtest/gtest.h>

namespace {

using modelgw::auth::jwt::parse_jwks;
namespace t = modelgw::testing::jwt;

TEST(Jwk, BuildsRsaAndEcKeysAndKeepsTheirAttributes) {
  std::string reason;
  auto set = parse_jwks(t::jwks({t::public_jwk(t::rsa_key(), "RS256"), t::public_jwk(t::ec256_key()),
                                 t::public_jwk(t::ec384_key(), "ES384")}),
                        reason);
  ASSERT_TRUE(set) << reason;
  ASSERT_EQ(set->keys.size(), 3u);
  EXPECT_EQ(set->skipped, 0u);
  EXPECT_EQ(set->keys[0].kid, "rsa-1");
  EXPECT_EQ(set->keys[0].kty, "RSA");
  EXPECT_EQ(set->keys[0].alg, "RS256");
  EXPECT_EQ(set->keys[1].crv, "P-256");
  EXPECT_EQ(set->keys[1].alg, "");
  EXPECT_EQ(set->keys[2].crv, "P-384");
  for (const auto& k : set->keys) EXPECT_NE(k.key, nullptr);
  EXPECT_EQ(EVP_PKEY_eq(set->keys[0].key.get(), t::rsa_key().key.get()), 1);
  EXPECT_EQ(EVP_PKEY_eq(set->keys[1].key.get(), t::ec256_key().key.get()), 1);
  ASSERT_EQ(set->with_kid("ec-384").size(), 1u);
  EXPECT_TRUE(set->with_kid("nope").empty());
}

TEST(Jwk, SkipsKeysItMustNotOrCannotUse) {
  auto enc = t::public_jwk(t::rsa_key());
  enc["use"] = "enc";
  auto no_verify = t::public_jwk(t::rsa_key());
  no_verify.erase("use");
  no_verify["key_ops"] = {"encrypt"};
  auto okp = nlohmann::json{{"kty", "OKP"}, {"kid", "ed"}, {"crv", "Ed25519"}, {"x", "AAAA"}};
  auto no_kid = t::public_jwk(t::ec256_key());
  no_kid.erase("kid");
  auto short_x = t::public_jwk(t::ec256_key());
  short_x["x"] = modelgw::util::base64url_encode(std::string(31, '\x01'));
  auto off_curve = t::public_jwk(t::ec256_key());
  off_curve["y"] = modelgw::util::base64url_encode(std::string(32, '\x01'));
  auto p521 = t::public_jwk(t::ec256_key());
  p521["crv"] = "P-521";
  auto weak = t::public_jwk(t::rsa_key());
  weak["n"] = modelgw::util::base64url_encode(std::string(128, '\xc5'));  // 1024 bits
  auto bad_n = t::public_jwk(t::rsa_key());
  bad_n["n"] = "not base64url!";
  auto even_e = t::public_jwk(t::rsa_key());
  even_e["e"] = "AQAA";  // 65536
  auto not_object = nlohmann::json("key");

  std::string reason;
  auto set = parse_jwks(t::jwks({enc, no_verify, okp, no_kid, short_x, off_curve, p521, weak, bad_n, even_e,
                                 not_object, t::public_jwk(t::rsa_key_2())}),
                        reason);
  ASSERT_TRUE(set) << reason;
  ASSERT_EQ(set->keys.size(), 1u);
  EXPECT_EQ(set->keys[0].kid, "rsa-2");
  EXPECT_EQ(set->skipped, 11u);
}

TEST(Jwk, RefusesDocumentsThatAreNotKeysets) {
  std::string reason;
  EXPECT_FALSE(parse_jwks("<html>", reason));
  EXPECT_EQ(reason, "the keyset document is not JSON");
  EXPECT_FALSE(parse_jwks("{\"keys\": {}}", reason));
  EXPECT_EQ(reason, "the keyset document has no 'keys' array");
  EXPECT_FALSE(parse_jwks("[]", reason));
  EXPECT_FALSE(parse_jwks(std::string(100, '[') + std::string(100, ']'), reason));
  auto empty = parse_jwks("{\"keys\": []}", reason);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->keys.empty());
}

}  // namespace
