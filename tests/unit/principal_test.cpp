#include "auth/principal.h"

#include <gtest/gtest.h>

TEST(Principal, ScopesAreWholeWords) {
  modelgw::auth::Principal p{1, "t", 1, "chat usage:read", ""};
  EXPECT_TRUE(p.has_scope("chat"));
  EXPECT_TRUE(p.has_scope("usage:read"));
  EXPECT_FALSE(p.has_scope("usage"));
  EXPECT_FALSE(p.has_scope("audit:read"));
  modelgw::auth::Principal admin{1, "t", 1, "admin", ""};
  EXPECT_TRUE(admin.has_scope("chat"));
  modelgw::auth::Principal none{1, "t", 1, "", ""};
  EXPECT_FALSE(none.has_scope("chat"));
}
