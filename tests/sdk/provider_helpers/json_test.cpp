// modelgw/provider/json.hpp: bounded parsing, members as vendors write them,
// token counts from any number.
#include <modelgw/provider/json.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace {

using namespace mgw::provider;

std::string nested(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(Json, NestingIsCountedOutsideStringsOnly) {
  EXPECT_TRUE(nesting_within(nested(3), 3));
  EXPECT_FALSE(nesting_within(nested(4), 3));
  EXPECT_TRUE(nesting_within(R"({"a":"[[[[[[[[","b":"\"[[[[[[[["})", 3));
  EXPECT_TRUE(nesting_within(std::string(10, ']'), 3));  // unbalanced closers do not count below zero
}

TEST(Json, ParseBoundedRefusesAHostileDepthAndBadBytesWithoutThrowing) {
  EXPECT_TRUE(parse_bounded(nested(kMaxVendorDepth)).is_array());
  EXPECT_TRUE(parse_bounded(nested(kMaxVendorDepth + 1)).is_discarded());
  EXPECT_TRUE(parse_bounded(nested(100000)).is_discarded());
  EXPECT_TRUE(parse_bounded("{not json").is_discarded());
  EXPECT_TRUE(parse_bounded("").is_discarded());
  EXPECT_TRUE(parse_bounded(nested(8), 4).is_discarded());
  EXPECT_TRUE(parse_json(R"({"a":1})").is_object());
  EXPECT_TRUE(parse_json("nope").is_discarded());
}

TEST(Json, DumpReplacesInvalidUtf8InsteadOfThrowing) {
  Json j = std::string(
      "a\xFF"
      "b");
  EXPECT_EQ(dump(j),
            "\"a\xEF\xBF\xBD"
            "b\"");
}

TEST(Json, QuotedIsWhatDumpWritesForEveryText) {
  const std::string texts[] = {"",        "gpt-4o-mini", "svc-pro",        "models/gemini-2.5-flash",
                               "a\"b",    "back\\slash", "tab\there",      std::string("nul\0byte", 8),
                               "del\x7f", "caf\xc3\xa9", "bad \xff utf-8", "~ and space"};
  for (const auto& t : texts) EXPECT_EQ(json_quoted(t), dump(Json(t))) << t;
  for (int b = 0; b < 256; ++b) {
    const std::string t = "x" + std::string(1, static_cast<char>(b)) + "y";
    EXPECT_EQ(json_quoted(t), dump(Json(t))) << "byte " << b;
  }
}

TEST(Json, KeepsMembersInTheOrderWritten) {
  EXPECT_EQ(dump(parse_json(R"({"z":1,"a":2,"m":3})")), R"({"z":1,"a":2,"m":3})");
}

TEST(Json, NullMembersReadAsAbsent) {
  const Json j = parse_json(R"({"a":null,"b":"text","c":5})");
  EXPECT_EQ(member(j, "a"), nullptr);
  EXPECT_EQ(member(j, "x"), nullptr);
  ASSERT_NE(member(j, "c"), nullptr);
  EXPECT_EQ(member(Json::array(), "a"), nullptr);
  EXPECT_EQ(string_member(j, "b"), "text");
  EXPECT_EQ(string_member(j, "c"), "");  // not a string
  EXPECT_EQ(string_member(Json("str"), "b"), "");
}

TEST(Json, CountsComeFromAnyNumber) {
  EXPECT_EQ(count_value(Json(42)), 42);
  EXPECT_EQ(count_value(Json(-5)), 0);
  EXPECT_EQ(count_value(Json(7.6)), 8);
  EXPECT_EQ(count_value(Json(-0.5)), 0);
  EXPECT_EQ(count_value(Json(1e300)), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(count_value(Json(std::numeric_limits<uint64_t>::max())), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(count_value(parse_json("NaN")), std::nullopt);  // not JSON at all: discarded
  EXPECT_EQ(count_value(Json("12")), std::nullopt);
  EXPECT_EQ(count_value(Json()), std::nullopt);
}

}  // namespace
