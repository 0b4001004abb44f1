// The x-ratelimit-* fields as written into a response head: OpenAI's names,
// its order, and its form of the time to reset.
#include "http/rate_limit_fields.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace modelgw::http {
namespace {

std::string reset_of(std::int64_t ms) {
  RateLimitFields f;
  f.requests = {10, 9, ms};
  std::string head;
  f.append_to(head);
  const std::string name = "\r\nx-ratelimit-reset-requests: ";
  const auto at = head.find(name);
  return at == std::string::npos ? "(none)" : head.substr(at + name.size());
}

TEST(RateLimitFields, ResetReadsLikeOpenAis) {
  EXPECT_EQ(reset_of(250), "250ms");
  EXPECT_EQ(reset_of(1000), "1s");
  EXPECT_EQ(reset_of(16'200), "17s");
  EXPECT_EQ(reset_of(60'000), "1m0s");
  EXPECT_EQ(reset_of(61'001), "1m2s");
  EXPECT_EQ(reset_of(-3), "0ms");
}

TEST(RateLimitFields, EachKindCountedIsWrittenRequestsFirst) {
  RateLimitFields f;
  EXPECT_TRUE(f.empty());
  std::string head;
  f.append_to(head);
  EXPECT_EQ(head, "") << "nothing counted: no field";

  f.tokens = {100000, 99000, 17000};
  EXPECT_FALSE(f.empty());
  f.append_to(head);
  EXPECT_EQ(head,
            "\r\nx-ratelimit-limit-tokens: 100000\r\nx-ratelimit-remaining-tokens: 99000"
            "\r\nx-ratelimit-reset-tokens: 17s");

  f.requests = {60, 0, 500};
  head.clear();
  f.append_to(head);
  EXPECT_EQ(head,
            "\r\nx-ratelimit-limit-requests: 60\r\nx-ratelimit-remaining-requests: 0"
            "\r\nx-ratelimit-reset-requests: 500ms"
            "\r\nx-ratelimit-limit-tokens: 100000\r\nx-ratelimit-remaining-tokens: 99000"
            "\r\nx-ratelimit-reset-tokens: 17s");
}

// The requests' admission comes first, the tokens' later: each keeps the
// other's kind, and a later standing of the same kind replaces the earlier.
TEST(RateLimitFields, ALaterAdmissionReplacesOnlyItsOwnKind) {
  RateLimitFields call;
  RateLimitFields requests;
  requests.requests = {60, 59, 1000};
  call.update(requests);
  RateLimitFields tokens;
  tokens.tokens = {1000, 400, 1000};
  call.update(tokens);
  EXPECT_EQ(call.requests.remaining, 59);
  EXPECT_EQ(call.tokens.remaining, 400);
  RateLimitFields again;
  again.requests = {60, 58, 900};
  call.update(again);
  EXPECT_EQ(call.requests.remaining, 58);
  EXPECT_EQ(call.tokens.remaining, 400);
}

}  // namespace
}  // namespace modelgw::http
