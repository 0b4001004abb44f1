// modelgw/provider/json_scan.hpp: the validating scan plugins cut large
// vendor bodies with. It must accept exactly what a JSON parser accepts
// (checked against nlohmann on a table of texts), hand out the values' text
// as written, and refuse numbers no reader can hold.
#include <modelgw/provider/json_scan.hpp>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace scan = mgw::provider::json_scan;

bool nlohmann_accepts(std::string_view text) {
  return !nlohmann::json::parse(text, nullptr, false).is_discarded();
}

TEST(JsonScan, AcceptsExactlyWhatAParserAccepts) {
  const char* const texts[] = {
      "{}",
      "[]",
      " [ 1 , -2.5e+3 , 0 , -0 , 0.0 ] ",
      R"({"a":{"b":[true,false,null]},"c":"\u00e9\n"})",
      "\"caf\xC3\xA9\"",
      "1",
      "-0.1E-2",
      // refused:
      "[1,]",
      "{,}",
      "[01]",
      "[1.]",
      "[.5]",
      "[+1]",
      "[1e]",
      "[--1]",
      R"({"a" 1})",
      R"({"a":1,})",
      "[\"\x01\"]",
      R"(["\x"])",
      R"(["\u12G4"])",
      "\"\xC3\"",
      "\"\xED\xA0\x80\"",
      "\"\xF5\x80\x80\x80\"",
      "\"\xC0\xAF\"",
      "[1] 2",
      "[",
      "{\"a\":",
      "tru",
      "nulll",
      "",
      "   ",
  };
  for (const char* text : texts) {
    EXPECT_EQ(scan::is_document(text), nlohmann_accepts(text)) << text;
  }
}

TEST(JsonScan, RefusesNestingPastItsBound) {
  const std::string deep = std::string(scan::kMaxScanDepth, '[') + std::string(scan::kMaxScanDepth, ']');
  EXPECT_TRUE(scan::is_document(deep));
  EXPECT_FALSE(scan::is_document("[" + deep + "]"));
  EXPECT_FALSE(scan::is_document(std::string(100000, '[')));
}

TEST(JsonScan, MembersAndElementsAreTheTextAsWritten) {
  std::vector<std::pair<std::string, std::string>> members;
  EXPECT_TRUE(scan::for_each_member(R"( { "a" : [1, 2.50] , "b\"c":"x" ,"d":{}} )",
                                    [&](std::string_view n, std::string_view v) {
                                      members.emplace_back(n, v);
                                      return true;
                                    }));
  EXPECT_EQ(members, (std::vector<std::pair<std::string, std::string>>{
                         {"a", "[1, 2.50]"}, {"b\\\"c", "\"x\""}, {"d", "{}"}}));
  std::vector<std::string> elements;
  EXPECT_TRUE(scan::for_each_element("[ 1e5 ,\"s\", [0] ]", [&](std::string_view v) {
    elements.emplace_back(v);
    return true;
  }));
  EXPECT_EQ(elements, (std::vector<std::string>{"1e5", "\"s\"", "[0]"}));
  EXPECT_FALSE(scan::for_each_member("[1]", [](auto, auto) { return true; }));
  EXPECT_FALSE(scan::for_each_element("{}", [](auto) { return true; }));
  EXPECT_FALSE(scan::for_each_element("[1] x", [](auto) { return true; }));
  // A visit that says stop ends the walk as a failure.
  EXPECT_FALSE(scan::for_each_element("[1,2]", [](auto) { return false; }));
}

TEST(JsonScan, NumberArraysHoldOnlyNumbersADoubleCanHold) {
  EXPECT_TRUE(scan::is_number_array("[]"));
  EXPECT_TRUE(scan::is_number_array("[0.1, -2E-3,7]"));
  EXPECT_TRUE(scan::is_number_array("[1e-400, 1.7976931348623157e308, 0e999999]"));  // underflow reads as 0
  EXPECT_FALSE(scan::is_number_array("[1e400]"));
  EXPECT_FALSE(scan::is_number_array("[-1.8e308]"));
  EXPECT_FALSE(scan::is_number_array("[" + std::string(400, '9') + "]"));
  EXPECT_FALSE(scan::is_number_array("[1, \"2\"]"));
  EXPECT_FALSE(scan::is_number_array("[[1]]"));
  EXPECT_FALSE(scan::is_number_array("[1 2]"));
  EXPECT_FALSE(scan::is_number_array("\"x\""));
}

TEST(JsonScan, PlainStringsAndCounts) {
  EXPECT_EQ(scan::plain_string("\"list\""), std::string_view("list"));
  EXPECT_FALSE(scan::plain_string(R"("l\u0069st")").has_value());
  EXPECT_FALSE(scan::plain_string("7").has_value());
  EXPECT_EQ(scan::count_value("42"), 42);
  EXPECT_EQ(scan::count_value("0"), 0);
  EXPECT_FALSE(scan::count_value("-1").has_value());
  EXPECT_FALSE(scan::count_value("1.5").has_value());
  EXPECT_FALSE(scan::count_value("9999999999999999999").has_value());
}

}  // namespace
