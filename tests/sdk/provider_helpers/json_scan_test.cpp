// modelgw/provider/json_scan.hpp: the validating scan plugins cut large
// vendor bodies with. It must accept exactly what a JSON parser accepts
// (checked against nlohmann on a table of texts), hand out the values' text
// as written, and refuse numbers no reader can hold.
#include <modelgw/provider/json_scan.hpp>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
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

TEST(JsonScan, TheWordTestFindsEveryByteThatEndsAPlainRun) {
  // Every byte value at every position among plain bytes, then every pair of
  // byte values at three pairs of positions: a borrow from one byte must
  // neither hide another nor be needed to find it.
  const auto special = [](unsigned b) { return b == '"' || b == '\\' || b < 0x20 || b >= 0x80; };
  const auto word = [](std::vector<std::pair<unsigned, unsigned>> bytes) {
    unsigned char raw[8] = {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'};
    for (const auto& [at, b] : bytes) raw[at] = static_cast<unsigned char>(b);
    std::uint64_t w = 0;
    std::memcpy(&w, raw, sizeof w);
    return w;
  };
  for (unsigned at = 0; at < 8; ++at) {
    for (unsigned b = 0; b < 256; ++b) {
      ASSERT_EQ(scan::detail::word_has_special(word({{at, b}})), special(b)) << "byte " << b << " at " << at;
    }
  }
  for (const auto& [i, j] : std::vector<std::pair<unsigned, unsigned>>{{0, 1}, {3, 4}, {0, 7}}) {
    for (unsigned a = 0; a < 256; ++a) {
      for (unsigned b = 0; b < 256; ++b) {
        ASSERT_EQ(scan::detail::word_has_special(word({{i, a}, {j, b}})), special(a) || special(b))
            << "bytes " << a << " and " << b << " at " << i << " and " << j;
      }
    }
  }
}

TEST(JsonScan, AStringEndsAtItsQuoteWhereverTheWordsFall) {
  // One byte that is not plain (or a sequence, or an escape) at every offset
  // of strings 0 to 72 bytes long (several 16- and 8-byte steps): the scan agrees with a parser on whether
  // the string is valid, and ends right after its closing quote.
  const std::vector<std::string> pieces = {"\"",   "\\\\", "\\n",  "\\u00e9", "\xC3\xA9", "\xF0\x9F\x98\x80",
                                           "\x1F", "\x80", "\xC3", "\x7F",    "\\x",      "\\"};
  for (std::size_t length = 0; length <= 72; ++length) {
    for (std::size_t at = 0; at <= length; ++at) {
      for (const auto& piece : pieces) {
        std::string text = "\"" + std::string(at, 'a') + piece + std::string(length - at, 'b') + "\"";
        const std::string doc = text + " ,";
        const bool valid = nlohmann_accepts(text);
        const std::size_t end = scan::string_end(doc, 0);
        if (piece == "\"") {
          EXPECT_EQ(end, at + 2) << "the first quote closes it: " << text;
          continue;
        }
        ASSERT_EQ(end != std::string_view::npos, valid) << text;
        if (valid) {
          EXPECT_EQ(end, text.size()) << text;
        }
        if (piece != "\x7F") {  // DEL is plain
          EXPECT_LE(scan::plain_run_end(text, 1), at + 1) << "never past the first byte that is not plain";
        }
      }
    }
  }
}

}  // namespace
