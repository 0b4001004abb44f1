#include "auth/jwt/token.h"
#include "util/base64url.h"

#include <gtest/gtest.h>

namespace {

using modelgw::auth::jwt::Malformed;
using modelgw::auth::jwt::parse_token;
using modelgw::auth::jwt::Token;
using modelgw::util::base64url_encode;

const std::string kHeader = base64url_encode(R"({"alg":"RS256","kid":"k"})");
const std::string kClaims = base64url_encode(R"({"sub":"x"})");
const std::string kSig = base64url_encode("signature");

std::string reason(std::string_view compact, std::size_t max = 8192) {
  auto r = parse_token(compact, max);
  return std::holds_alternative<Malformed>(r) ? std::get<Malformed>(r).reason : "<parsed>";
}

TEST(Token, SplitsAWellFormedToken) {
  const std::string compact = kHeader + "." + kClaims + "." + kSig;
  auto r = parse_token(compact, 8192);
  ASSERT_TRUE(std::holds_alternative<Token>(r));
  const auto& t = std::get<Token>(r);
  EXPECT_EQ(t.header.at("kid"), "k");
  EXPECT_EQ(t.claims.at("sub"), "x");
  EXPECT_EQ(t.signing_input, kHeader + "." + kClaims);
  EXPECT_EQ(t.signature, "signature");
}

TEST(Token, CountsSegments) {
  EXPECT_EQ(reason("abc"), "it has 1 dot-separated segments; a signed JWT has 3");
  EXPECT_EQ(reason(kHeader + "." + kClaims), "it has 2 dot-separated segments; a signed JWT has 3");
  EXPECT_EQ(reason(kHeader + "." + kClaims + "." + kSig + "." + kSig),
            "it has 4 dot-separated segments; a signed JWT has 3");
  EXPECT_EQ(reason(".."), "its header or claims segment is empty");
  EXPECT_EQ(reason("." + kClaims + "." + kSig), "its header or claims segment is empty");
}

TEST(Token, RefusesBadBase64UrlInEverySegment) {
  EXPECT_EQ(reason(kHeader + "=." + kClaims + "." + kSig),
            "the header segment is not base64url without padding");
  EXPECT_EQ(reason(kHeader + "." + kClaims + "+." + kSig),
            "the claims segment is not base64url without padding");
  EXPECT_EQ(reason(kHeader + "." + kClaims + ".c2ln/w=="),
            "the signature segment is not base64url without padding");
}

TEST(Token, RefusesHeadersAndClaimsThatAreNotJsonObjects) {
  EXPECT_EQ(reason(base64url_encode("not json") + "." + kClaims + "." + kSig), "the header is not JSON");
  EXPECT_EQ(reason(base64url_encode("[1,2]") + "." + kClaims + "." + kSig),
            "the header is not a JSON object");
  EXPECT_EQ(reason(kHeader + "." + base64url_encode("\"s\"") + "." + kSig),
            "the claims is not a JSON object");
  EXPECT_EQ(reason(kHeader + "." + base64url_encode("{\"a\":\"\xff\"}") + "." + kSig),
            "the claims is not JSON");
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  EXPECT_EQ(reason(kHeader + "." + base64url_encode("{\"a\":" + deep + "}") + "." + kSig),
            "the claims is nested too deeply");
}

TEST(Token, RefusesOversizedTokensBeforeDecoding) {
  const std::string big = kHeader + "." + std::string(9000, 'A') + "." + kSig;
  EXPECT_NE(reason(big).find("above the limit of 8192"), std::string::npos);
  EXPECT_EQ(reason(kHeader + "." + kClaims + "." + kSig, 10),
            "it is " + std::to_string(kHeader.size() + kClaims.size() + kSig.size() + 2) +
                " bytes long, above the limit of 10");
}

TEST(Token, LeavesAnEmptySignatureToTheValidator) {
  auto r = parse_token(kHeader + "." + kClaims + ".", 8192);
  ASSERT_TRUE(std::holds_alternative<Token>(r));
  EXPECT_TRUE(std::get<Token>(r).signature.empty());
}

}  // namespace
