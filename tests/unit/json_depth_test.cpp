#include "util/json_depth.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using modelgw::util::json_nesting_depth;

TEST(JsonDepth, CountsOnlyStructuralBrackets) {
  EXPECT_EQ(json_nesting_depth("{}", 64), 1u);
  EXPECT_EQ(json_nesting_depth(R"({"a":[{"b":[]}]})", 64), 4u);
  EXPECT_EQ(json_nesting_depth(R"({"a":"[[[[{{{{"})", 64), 1u);
  EXPECT_EQ(json_nesting_depth(R"({"a":"\"[[[["})", 64), 1u);
  EXPECT_EQ(json_nesting_depth("42", 64), 0u);
}

TEST(JsonDepth, StopsPastTheLimit) {
  std::string deep(1'000'000, '[');
  EXPECT_EQ(json_nesting_depth(deep, 64), 65u);
}

}  // namespace
