#include "upstream/upstream_url.h"

#include <gtest/gtest.h>

using modelgw::upstream::parse_upstream_url;

TEST(UpstreamUrl, SplitsSchemeHostPortAndPath) {
  auto u = parse_upstream_url("https://api.openai.com/v1/");
  EXPECT_TRUE(u.https);
  EXPECT_EQ(u.host, "api.openai.com");
  EXPECT_EQ(u.port, 443);
  EXPECT_EQ(u.base_path, "/v1");
  auto l = parse_upstream_url("http://127.0.0.1:8081");
  EXPECT_FALSE(l.https);
  EXPECT_EQ(l.port, 8081);
  EXPECT_EQ(l.base_path, "");
}

TEST(UpstreamUrl, RejectsWhatCannotBeAnUpstream) {
  EXPECT_THROW(parse_upstream_url("ftp://x/v1"), std::invalid_argument);
  EXPECT_THROW(parse_upstream_url("http:///v1"), std::invalid_argument);
  EXPECT_THROW(parse_upstream_url("http://x/v1?key=1"), std::invalid_argument);
}
