#include "http/request_id.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

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

// The random part draws each of the 62 characters equally often: a draw
// folded onto them (a remainder of six bits, say) would make some two or
// three times as common and the ids that much easier to collide.
TEST(RequestId, TheRandomCharactersAreUniform) {
  std::map<char, int> seen;
  constexpr int kIds = 20000;
  for (int i = 0; i < kIds; ++i) {
    const std::string id = modelgw::http::new_request_id();
    for (std::size_t k = 4 + 8; k < id.size(); ++k) ++seen[id[k]];
  }
  ASSERT_EQ(seen.size(), 62U);
  const double expected = kIds * 16.0 / 62.0;  // about 5161 each
  for (const auto& [c, n] : seen) {
    EXPECT_GT(n, expected * 0.9) << c;
    EXPECT_LT(n, expected * 1.1) << c;
  }
}
