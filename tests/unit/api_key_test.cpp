#include "auth/api_key.h"

#include <gtest/gtest.h>

#include <future>
#include <set>
#include <string>

namespace {

using namespace modelgw::auth;

TEST(ApiKey, MintedKeysHaveTheFormatAndDiffer) {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    std::string k = mint_api_key();
    ASSERT_EQ(k.size(), kKeyPrefix.size() + 40);
    ASSERT_EQ(k.rfind(kKeyPrefix, 0), 0u);
    for (char c : k.substr(kKeyPrefix.size())) ASSERT_TRUE(std::isalnum(static_cast<unsigned char>(c)));
    seen.insert(k);
  }
  EXPECT_EQ(seen.size(), 200u);
}

TEST(ApiKey, HashIsSha256Hex) {
  EXPECT_EQ(hash_api_key("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hash_api_key(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // FIPS 180-2's long message, hashed on two threads at once (each has its
  // own context) and twice on each (a context is reused).
  const std::string million(1'000'000, 'a');
  auto twice = [&million] {
    return hash_api_key(million) == hash_api_key(million) ? hash_api_key(million) : "";
  };
  auto other = std::async(std::launch::async, twice);
  EXPECT_EQ(twice(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(other.get(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(ApiKey, DisplayPrefixIsShort) {
  std::string k = mint_api_key();
  EXPECT_EQ(display_prefix(k), k.substr(0, kKeyPrefix.size() + 4));
}

TEST(ApiKey, ConstantTimeEqual) {
  EXPECT_TRUE(constant_time_equal("abcd", "abcd"));
  EXPECT_FALSE(constant_time_equal("abcd", "abce"));
  EXPECT_FALSE(constant_time_equal("abcd", "abc"));
}

}  // namespace
