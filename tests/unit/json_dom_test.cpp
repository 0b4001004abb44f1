// parse_json_fast against nlohmann's own parser: every text the fast parse
// takes, nlohmann takes to the same document (values and number types), and
// the fast parse refuses only what it says it refuses.
#include "util/json_dom.h"
#include "util/json_body.h"
#include "util/json_text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <variant>
#include <vector>

namespace {

using modelgw::util::is_json;
using modelgw::util::kFastParseMaxBytes;
using modelgw::util::kMaxJsonDepth;
using modelgw::util::parse_json_fast;
using json = nlohmann::json;

// Equal values of equal types: nlohmann's == calls 1 (unsigned) and 1
// (signed) and 1.0 equal; the stages do not (is_number_unsigned()).
// The one exception: "-0", which nlohmann reads as a signed 0 and the fast
// parse as an unsigned one; both are 0 and written "0".
::testing::AssertionResult same(const json& a, const json& b, const std::string& where = "$") {
  const bool zeros = a.is_number_integer() && b.is_number_integer() && a == 0 && b == 0;
  if (a.type() != b.type() && !zeros) {
    return ::testing::AssertionFailure() << where << ": " << a.type_name() << " vs " << b.type_name() << " ("
                                         << a.dump() << " vs " << b.dump() << ")";
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return ::testing::AssertionFailure() << where << ": member counts differ";
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto other = b.find(it.key());
      if (other == b.end()) return ::testing::AssertionFailure() << where << ": no member " << it.key();
      if (auto r = same(it.value(), *other, where + "." + it.key()); !r) return r;
    }
    return ::testing::AssertionSuccess();
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return ::testing::AssertionFailure() << where << ": lengths differ";
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (auto r = same(a[i], b[i], where + "[" + std::to_string(i) + "]"); !r) return r;
    }
    return ::testing::AssertionSuccess();
  }
  if (a.is_number_float()) {
    // Bit for bit: -0.0 and 0.0 are different texts when the body is written again.
    const double x = a.get<double>();
    const double y = b.get<double>();
    if (std::signbit(x) != std::signbit(y) || !(x == y || (x != x && y != y))) {
      return ::testing::AssertionFailure() << where << ": " << a.dump() << " vs " << b.dump();
    }
    return ::testing::AssertionSuccess();
  }
  if (a != b) return ::testing::AssertionFailure() << where << ": " << a.dump() << " vs " << b.dump();
  return ::testing::AssertionSuccess();
}

// Whatever the fast parse takes, nlohmann takes to the same document.
void expect_agrees(const std::string& text) {
  const auto fast = parse_json_fast(text);
  if (!fast) return;
  const json slow = json::parse(text, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(slow.is_discarded()) << "the fast parse took what nlohmann refuses: " << text.substr(0, 200);
  EXPECT_TRUE(same(*fast, slow)) << text.substr(0, 200);
}

const std::vector<std::string>& valid_corpus() {
  static const std::vector<std::string> corpus = {
      R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]})",
      R"({"model":"m","max_tokens":5,"temperature":0.7,"top_p":1,"n":1,"stream":false,"stop":null})",
      R"({"a":-0,"b":-0.0,"c":0,"d":1e-400,"e":1E2,"f":-1.5e3,"g":9223372036854775807})",
      R"({"h":9223372036854775808,"i":18446744073709551615,"j":-9223372036854775808})",
      R"({"dup":1,"dup":"two","dup":[3]})",
      R"({"s":"a\u0000b\n\t\"\\\/\b\f\r","u":"\u00e9\ud83d\ude00","raw":"é😀 مرحبا 你好"})",
      R"({"nested":{"x":[[],[{}],[[[1]]]],"y":{"z":{"w":null}}},"t":true,"f":false})",
      R"(  {"spaces" : [ 1 , 2 , 3 ] }  )",
      R"({"":"empty key","k":""})",
      R"([1,"two",{"three":3}])",
      R"("a string")",
      "42",
      "null",
  };
  return corpus;
}

TEST(JsonDom, TakesWhatNlohmannTakesToTheSameDocument) {
  for (const std::string& text : valid_corpus()) {
    const auto fast = parse_json_fast(text);
    ASSERT_TRUE(fast.has_value()) << text;
    EXPECT_TRUE(same(*fast, json::parse(text))) << text;
  }
}

TEST(JsonDom, ARepeatedKeyKeepsItsLastValue) {
  const auto doc = parse_json_fast(R"({"dup":1,"dup":"two"})");
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(doc->at("dup"), "two");
}

// A name given twice in any object is reported, by the fast parse and by
// nlohmann's (which takes what the fast one refuses: here a 65-bit integer),
// and never for names that repeat only across objects.
TEST(JsonDom, ParseJsonObjectReportsANameGivenTwiceInAnyObject) {
  const std::string big = "18446744073709551616";  // past 64 bits: nlohmann parses it
  for (const std::string& extra : {std::string(), ",\"n\":" + big}) {
    for (const char* body : {R"({"a":1,"a":2)", R"({"o":{"x":1,"y":[{"k":1,"k":2}]})",
                             R"({"m":[{"role":"user","content":"a","content":"b"}])"}) {
      bool repeated = false;
      const auto doc =
          modelgw::util::parse_json_object(std::string(body) + extra + "}", "its members", &repeated);
      ASSERT_TRUE(std::holds_alternative<nlohmann::json>(doc)) << body << extra;
      EXPECT_TRUE(repeated) << body << extra;
    }
    bool repeated = true;
    const auto doc = modelgw::util::parse_json_object(
        R"({"a":{"k":1},"b":{"k":2},"c":[{"k":1},{"k":2}])" + extra + "}", "its members", &repeated);
    ASSERT_TRUE(std::holds_alternative<nlohmann::json>(doc));
    EXPECT_FALSE(repeated) << "the same name in different objects is no repeat" << extra;
    // An object of many names (the fallback keeps them in a set past a few).
    std::string wide = "{";
    for (int i = 0; i < 40; ++i) wide += "\"n" + std::to_string(i) + "\":" + std::to_string(i) + ",";
    for (const std::string& last : {std::string("\"last\":0"), std::string("\"n3\":0")}) {
      repeated = false;
      const auto parsed =
          modelgw::util::parse_json_object(wide + last + extra + "}", "its members", &repeated);
      ASSERT_TRUE(std::holds_alternative<nlohmann::json>(parsed));
      EXPECT_EQ(repeated, last != "\"last\":0") << last << extra;
    }
  }
}

TEST(JsonDom, NumbersKeepNlohmannsTypes) {
  const auto doc = parse_json_fast(R"({"u":5,"i":-5,"z":-0,"f":5.0,"big":18446744073709551615})");
  ASSERT_TRUE(doc.has_value());
  EXPECT_TRUE(doc->at("u").is_number_unsigned());
  EXPECT_TRUE(doc->at("i").is_number_integer() && !doc->at("i").is_number_unsigned());
  EXPECT_TRUE(doc->at("f").is_number_float());
  EXPECT_TRUE(doc->at("big").is_number_unsigned());
}

TEST(JsonDom, RefusesWhatItCannotTakeExactly) {
  // Invalid JSON: nlohmann refuses it too, and says where.
  for (const char* text : {"", "{", "{\"a\":}", "[01]", "{\"a\":1,}", "[\"\\ud800\"]", "[\"\\udc00\"]",
                           "[\"\x80\"]", "[1e400]", "{\"a\":\"\x01\"}", "{} x", "tru", "[NaN]"}) {
    EXPECT_FALSE(parse_json_fast(text).has_value()) << text;
  }
  // Integers past 64 bits: nlohmann reads them as floats, so they go its way.
  EXPECT_FALSE(parse_json_fast("[18446744073709551616]").has_value());
  EXPECT_FALSE(parse_json_fast("[-9223372036854775809]").has_value());
  // Too long for the thread's parser.
  std::string long_text = "[\"" + std::string(kFastParseMaxBytes, 'a') + "\"]";
  EXPECT_FALSE(parse_json_fast(long_text).has_value());
}

TEST(JsonDom, NestingDeeperThanTheLimitIsRefused) {
  auto nested = [](std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  EXPECT_TRUE(parse_json_fast(nested(kMaxJsonDepth)).has_value());
  EXPECT_FALSE(parse_json_fast(nested(kMaxJsonDepth + 1)).has_value());
  // A million brackets: refused without a recursive walk.
  EXPECT_FALSE(parse_json_fast(std::string(1'000'000, '[')).has_value());
}

TEST(JsonDom, ParseJsonObjectGivesTheSameErrorsAsBefore) {
  auto error_of = [](std::string_view body) {
    auto r = modelgw::util::parse_json_object(body);
    return std::holds_alternative<modelgw::errors::ApiError>(r)
               ? std::get<modelgw::errors::ApiError>(r).message
               : std::string("ok");
  };
  EXPECT_EQ(error_of("[1]"), "the request body must be a JSON object, not an array");
  EXPECT_EQ(error_of("{\"a\":}"), "the request body is not valid JSON (byte 6)");
  EXPECT_NE(error_of("{\"max_tokens\":1e999}").find("'max_tokens' is 1e999, a number out of range"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(65, '[') + std::string(65, ']')).find("deeper than 64 levels"),
            std::string::npos);
  EXPECT_EQ(error_of("{\"n\":18446744073709551616}"), "ok");  // nlohmann's float, as before
}

TEST(JsonDom, IsJsonAnswersAsNlohmannsAccept) {
  for (const std::string& text : valid_corpus()) EXPECT_TRUE(is_json(text)) << text;
  // Refused by simdjson, accepted by nlohmann: asked of nlohmann.
  EXPECT_TRUE(is_json("[18446744073709551616]"));
  EXPECT_TRUE(is_json(std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']')));
  for (const char* text : {"", "{", "{\"a\":}", "[01]", "[\"\\ud800\"]", "{} x", "[1e400]"}) {
    EXPECT_FALSE(is_json(text)) << text;
  }
}

// Mutations of valid bodies (a byte changed, inserted or removed, bounded
// in count): whatever the fast parse takes of them, nlohmann takes alike.
TEST(JsonDom, MutatedBodiesAgreeWithNlohmann) {
  std::mt19937 random(27);
  const std::string alphabet = "{}[]\",:\\/0123456789-+.eEtrufalsn \t\r\nu\x01\x7f\xc3\xa9\xed\xa0\x80";
  std::size_t taken = 0;
  for (int round = 0; round < 20'000; ++round) {
    std::string text = valid_corpus()[random() % valid_corpus().size()];
    const int edits = 1 + static_cast<int>(random() % 3);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = random() % text.size();
      const char c = alphabet[random() % alphabet.size()];
      switch (random() % 3) {
        case 0:
          text[at] = c;
          break;
        case 1:
          text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        default:
          text.erase(at, 1);
          break;
      }
    }
    expect_agrees(text);
    EXPECT_EQ(is_json(text), json::accept(text)) << text.substr(0, 200);
    if (parse_json_fast(text)) ++taken;
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(taken, 1000u) << "the mutations should leave many valid bodies";
}

// append_json_string writes a valid string as nlohmann's serializer does
// (the same escapes, UTF-8 as it is), over every byte value and random mixes
// of plain runs, escapes and multi-byte characters.
TEST(JsonText, AppendJsonStringWritesWhatNlohmannWrites) {
  std::mt19937 rng(27);
  const std::vector<std::string> pieces = {
      "plain text ",        "\"",   "\\",   "\n",   "\r", "\t",       "\b",           "\f",
      std::string(1, '\0'), "\x01", "\x1f", "\x7f", "/",  "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
      "{\"k\":[1,2]}"};
  for (int round = 0; round < 500; ++round) {
    std::string s;
    const int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) s += pieces[rng() % pieces.size()];
    std::string out = "prefix:";
    modelgw::util::append_json_string(out, s);
    ASSERT_EQ(out, "prefix:" + json(s).dump()) << round;
  }
  for (int c = 0; c < 0x80; ++c) {
    const std::string s(1, static_cast<char>(c));
    std::string out;
    modelgw::util::append_json_string(out, s);
    EXPECT_EQ(out, json(s).dump()) << c;
  }
}

// Bytes that are not UTF-8 are written as U+FFFD, one for each bad byte,
// and the text stays JSON that reads back.
TEST(JsonText, AppendJsonStringReplacesBytesThatAreNotUtf8) {
  std::string out;
  modelgw::util::append_json_string(out, std::string("a\xFF\"b\xC3", 5));
  EXPECT_EQ(out, "\"a\xEF\xBF\xBD\\\"b\xEF\xBF\xBD\"");
  EXPECT_EQ(json::parse(out).get<std::string>(), "a\xEF\xBF\xBD\"b\xEF\xBF\xBD");
}

}  // namespace
