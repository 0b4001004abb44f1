#include "http/request_id.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

TEST(RequestId, FormatAndUniqueness) {
  std::set<std::string> seen;
  for (int i = 0; i < 10000; ++i) {
    auto id = modelgw::http::new_request_id();
    ASSERT_EQ(id.size(), 28u);
    ASSERT_EQ(id.rfind("req_", 0), 0u);
    for (char c : id.substr(4)) ASSERT_TRUE(std::isalnum(static_cast<unsigned char>(c)));
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 10000u);
}

TEST(RequestId, ThreadsDoNotRepeatEachOther) {
  std::vector<std::string> a, b;
  std::thread t1([&] {
    for (int i = 0; i < 1000; ++i) a.push_back(modelgw::http::new_request_id());
  });
  std::thread t2([&] {
    for (int i = 0; i < 1000; ++i) b.push_back(modelgw::http::new_request_id());
  });
  t1.join();
  t2.join();
  std::set<std::string> all(a.begin(), a.end());
  all.insert(b.begin(), b.end());
  EXPECT_EQ(all.size(), 2000u);
}

TEST(RequestId, IdsMadeLaterSortLater) {
  const auto first = modelgw::http::new_request_id();
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  const auto second = modelgw::http::new_request_id();
  // The time part (after "req_", 8 characters) orders them.
  EXPECT_LT(first.substr(4, 8), second.substr(4, 8));
}
