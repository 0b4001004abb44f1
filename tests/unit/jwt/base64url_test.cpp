#include "util/base64url.h"

#include <gtest/gtest.h>

namespace {

using modelgw::util::base64url_decode;
using modelgw::util::base64url_encode;

TEST(Base64Url, RoundTripsEveryLength) {
  std::string bytes;
  for (int i = 0; i < 70; ++i) {
    EXPECT_EQ(base64url_decode(base64url_encode(bytes)), bytes) << "length " << i;
    bytes.push_back(static_cast<char>(i * 37 + 251));
  }
}

TEST(Base64Url, UsesTheUrlAlphabetWithoutPadding) {
  EXPECT_EQ(base64url_encode("\xfb\xff\xbf"), "-_-_");
  EXPECT_EQ(base64url_encode("a"), "YQ");
  EXPECT_EQ(base64url_decode("YQ"), "a");
  EXPECT_EQ(base64url_decode(""), "");
}

TEST(Base64Url, RefusesAnythingButCanonicalBase64Url) {
  EXPECT_FALSE(base64url_decode("YQ=="));   // padding
  EXPECT_FALSE(base64url_decode("+/+/"));   // the standard alphabet
  EXPECT_FALSE(base64url_decode("YW J"));   // whitespace
  EXPECT_FALSE(base64url_decode("YWJjZ"));  // a lone trailing character
  EXPECT_FALSE(base64url_decode("YR"));     // non-zero unused bits: "YQ" is the one encoding of "a"
  EXPECT_FALSE(base64url_decode(std::string("YW\0J", 4)));
}

}  // namespace
