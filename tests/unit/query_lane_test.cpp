// The query lane: a tenant runs at most its share of usage, budget and audit
// reads at once; a place is given back when its query ends; tenants do not
// share the bound.
#include "api/query_lane.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

using modelgw::api::QueryLane;

TEST(QueryLane, ATenantRunsAtMostItsShareAtOnce) {
  QueryLane lane(1, 2);
  auto a = lane.enter(7);
  auto b = lane.enter(7);
  EXPECT_TRUE(a);
  EXPECT_TRUE(b);
  EXPECT_FALSE(lane.enter(7)) << "a third query of tenant 7 while two run";
  EXPECT_TRUE(lane.enter(8)) << "another tenant has its own share";
  { auto done = std::move(a); }  // a query ends
  EXPECT_TRUE(lane.enter(7));
  lane.stop();
}

TEST(QueryLane, PlacesComeBackWhateverTheOrder) {
  QueryLane lane(1, 3);
  std::vector<QueryLane::Ticket> held;
  for (int round = 0; round < 100; ++round) {
    while (auto t = lane.enter(1)) held.push_back(std::move(t));
    ASSERT_EQ(held.size(), 3u) << round;
    held.erase(held.begin() + round % 3);
    held.clear();
  }
  EXPECT_TRUE(lane.enter(1));
  lane.stop();
}

}  // namespace
