#include "usage/usage_writer.h"
#include "storage_fixture.h"

#include <gtest/gtest.h>

#include <thread>

namespace {

modelgw::plugins::UsageRow row(int i) {
  modelgw::plugins::UsageRow r;
  r.request_id = "req_" + std::to_string(i);
  r.tenant_id = 1;
  r.alias = "m";
  r.provider = "p";
  r.http_status = 200;
  r.created_unix_ms = 1000 + i;
  return r;
}

TEST(UsageWriter, StopFlushesEverythingQueued) {
  modelgw::testing::TempStorage t;
  t.storage->create_tenant("acme", 1);
  // A flush interval far longer than the test: only stop() can write these.
  modelgw::usage::UsageWriter w(*t.storage, 600000, 100000, 1000000);
  w.start();
  for (int i = 0; i < 1234; ++i) w.enqueue(row(i));
  w.stop();
  EXPECT_EQ(w.written(), 1234u);
  modelgw::plugins::UsageQuery q;
  q.limit = 1000;
  EXPECT_EQ(t.storage->query_usage(q).size(), 1000u);
  q.request_id = "req_1233";
  ASSERT_EQ(t.storage->query_usage(q).size(), 1u);
}

TEST(UsageWriter, WritesInBatchesWhileRunning) {
  modelgw::testing::TempStorage t;
  modelgw::usage::UsageWriter w(*t.storage, 20, 10, 1000);
  w.start();
  for (int i = 0; i < 25; ++i) w.enqueue(row(i));
  for (int i = 0; i < 200 && w.written() < 25; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(w.written(), 25u);
  w.stop();
}

TEST(UsageWriter, BoundsTheQueueWhenStorageCannotKeepUp) {
  modelgw::testing::TempStorage t;
  modelgw::usage::UsageWriter w(*t.storage, 600000, 100000, 10);  // never started: nothing drains
  for (int i = 0; i < 15; ++i) w.enqueue(row(i));
  EXPECT_EQ(w.dropped(), 5u);
  w.start();
  w.stop();
  EXPECT_EQ(w.written(), 10u);
}

}  // namespace
