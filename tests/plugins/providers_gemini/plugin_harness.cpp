#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace gemini_test {

Json gemini_body(std::string_view client_body, const CallContext& call) {
  Provider p;
  auto b = build(p, call, client_body);
  EXPECT_EQ(b->status, MGW_OK) << b->refusal().param << ": " << b->refusal().message;
  EXPECT_TRUE(b->error.events.empty());
  return b->body();
}

mgw::testing::RecordedError refused(std::string_view client_body) {
  Provider p;
  auto b = build(p, CallContext{}, client_body);
  EXPECT_EQ(b->status, MGW_INVALID_ARGUMENT) << client_body;
  EXPECT_EQ(b->error.events, std::vector<std::string>{"error"}) << client_body;
  EXPECT_TRUE(b->req.body.empty()) << "a refused request must not be emitted";
  const auto e = b->refusal();
  EXPECT_EQ(e.http_status, 400);
  EXPECT_EQ(e.code, "invalid_parameter");
  EXPECT_FALSE(e.retryable);
  return e;
}

}  // namespace gemini_test
