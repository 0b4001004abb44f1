#include "auth/jwt/cache_control.h"

#include <gtest/gtest.h>

namespace {

using modelgw::auth::jwt::cache_lifetime;
using std::chrono::seconds;

TEST(CacheControl, ReadsMaxAge) {
  EXPECT_EQ(cache_lifetime("max-age=300"), seconds(300));
  EXPECT_EQ(cache_lifetime("public, max-age=86400, must-revalidate"), seconds(86400));
  EXPECT_EQ(cache_lifetime("Max-Age=\"60\""), seconds(60));
  EXPECT_EQ(cache_lifetime("max-age=600, max-age=30"), seconds(30));  // the most restrictive
  EXPECT_EQ(cache_lifetime("max-age=99999999999999999999"), seconds(2147483648LL));
}

TEST(CacheControl, NoStoreAndNoCacheMeanZero) {
  EXPECT_EQ(cache_lifetime("no-store"), seconds(0));
  EXPECT_EQ(cache_lifetime("max-age=600, no-cache"), seconds(0));
  EXPECT_EQ(cache_lifetime("private, NO-STORE"), seconds(0));
}

TEST(CacheControl, AnInvalidMaxAgeIsStaleAndNoneIsUnknown) {
  EXPECT_EQ(cache_lifetime("max-age=soon"), seconds(0));
  EXPECT_EQ(cache_lifetime("max-age=-5"), seconds(0));
  EXPECT_EQ(cache_lifetime("max-age"), seconds(0));
  EXPECT_EQ(cache_lifetime(""), std::nullopt);
  EXPECT_EQ(cache_lifetime("public, must-revalidate"), std::nullopt);
  EXPECT_EQ(cache_lifetime("s-maxage=60"), std::nullopt);
}

}  // namespace
