#include "util/json_write.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace modelgw::util {
namespace {

using nlohmann::json;

std::string dumped(const json& doc) {
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

TEST(JsonWrite, EveryKindOfValueIsWrittenAsDumpWritesIt) {
  const json docs[] = {
      nullptr,
      true,
      false,
      0,
      -1,
      std::numeric_limits<std::int64_t>::min(),
      std::numeric_limits<std::int64_t>::max(),
      std::numeric_limits<std::uint64_t>::max(),
      0.0,
      -0.0,
      1.0,
      0.1,
      1e21,
      -2.5e-300,
      std::numeric_limits<double>::quiet_NaN(),
      std::numeric_limits<double>::infinity(),
      "",
      "plain text",
      "quote \" backslash \\ slash / tab \t newline \n return \r bs \b ff \f nul " + std::string(1, '\0') +
          " unit \x1f del \x7f",
      "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xEF\xBF\xBF",
      json::array(),
      json::object(),
      json::parse(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"n":1,"t":0.7,)"
                  R"("tools":[],"meta":{},"deep":[[[[{"z":null,"a":[1,2.5,"x"]}]]]],"b":false})"),
      json::binary({1, 2, 3}),
  };
  for (const auto& doc : docs) {
    EXPECT_EQ(json_text(doc), dumped(doc)) << dumped(doc);
  }
}

// Floats go through nlohmann's own writer, called without dump()'s
// serializer: every bit pattern (subnormals, NaNs and infinities included)
// and the ranges where "1.0", "0.0001" and "1e+16" forms meet come out as
// dump() writes them.
TEST(JsonWrite, EveryFloatIsWrittenAsDumpWritesIt) {
  std::mt19937_64 random(27);
  std::vector<double> values = {std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::max(),
                                -std::numeric_limits<double>::max(),
                                -std::numeric_limits<double>::infinity(),
                                1e15,
                                1e16,
                                123456789012345.0,
                                1234567890123456.0,
                                0.0001,
                                0.00001,
                                -0.00012345};
  for (int i = 0; i < 20000; ++i) values.push_back(std::bit_cast<double>(random()));
  for (int e = -30; e <= 30; ++e) {
    for (int i = 0; i < 50; ++i) {
      const double mantissa = static_cast<double>(random() % 2000001) / 1000.0 - 1000.0;
      values.push_back(mantissa * std::pow(10.0, e));
    }
  }
  for (const double v : values) {
    const json doc = v;
    ASSERT_EQ(json_text(doc), dumped(doc)) << std::bit_cast<std::uint64_t>(v);
  }
}

TEST(JsonWrite, AppendsAfterWhatTheTextHolds) {
  std::string out = "data: ";
  append_json(out, json{{"a", 1}});
  EXPECT_EQ(out, R"(data: {"a":1})");
}

// Strings of every length up to past two 16-byte words, with a byte that
// needs a look (an escape, a control byte, a multi-byte sequence) at every
// offset: the word-at-a-time scan must end each plain run exactly there.
TEST(JsonWrite, StringsMatchDumpWhereverTheirSpecialBytesFall) {
  const std::string specials[] = {"\"", "\\", "\n", std::string(1, '\x01'), "\xC3\xA9", "\xF0\x9F\x98\x80"};
  for (std::size_t len = 0; len <= 40; ++len) {
    for (std::size_t at = 0; at <= len; ++at) {
      for (const auto& special : specials) {
        std::string s(len, 'a');
        s.insert(at, special);
        const json doc = {{"k" + s, s}};
        ASSERT_EQ(json_text(doc), dumped(doc)) << "length " << len << ", at " << at;
      }
    }
  }
}

// Documents built at random (nested, every type) are written as dump()
// writes them.
TEST(JsonWrite, RandomDocumentsMatchDump) {
  std::mt19937_64 random(27);
  const auto pick = [&](int n) { return static_cast<int>(random() % static_cast<std::uint64_t>(n)); };
  std::function<json(int)> build = [&](int depth) -> json {
    switch (depth >= 4 ? pick(6) : pick(8)) {
      case 0:
        return nullptr;
      case 1:
        return pick(2) == 0;
      case 2:
        return static_cast<std::int64_t>(random());
      case 3:
        return static_cast<double>(static_cast<std::int64_t>(random())) / 1000.0;
      case 4:
      case 5: {
        std::string s;
        for (int i = pick(40); i > 0; --i)
          s.push_back(static_cast<char>(pick(2) == 0 ? 'a' + pick(26) : pick(128)));
        return s;
      }
      case 6: {
        json a = json::array();
        for (int i = pick(5); i > 0; --i) a.push_back(build(depth + 1));
        return a;
      }
      default: {
        json o = json::object();
        for (int i = pick(5); i > 0; --i) o["m" + std::to_string(pick(100))] = build(depth + 1);
        return o;
      }
    }
  };
  for (int i = 0; i < 2000; ++i) {
    const json doc = build(0);
    ASSERT_EQ(json_text(doc), dumped(doc)) << dumped(doc);
  }
}

// The digest's form (idempotency/idempotency_key.cpp): a float that equals
// an integer is written as that integer; every other value as dump() writes it.
TEST(JsonWrite, IntegralFloatsCanBeWrittenAsTheIntegersTheyEqual) {
  const auto canonical = [](const json& doc) {
    std::string out;
    append_json(out, doc, FloatForm::integral_as_integer);
    return out;
  };
  EXPECT_EQ(canonical(json::parse(R"({"a":[1.0,1e0,10E-1,-0.0,-3.0,0.25,1e300,"1.0",2]})")),
            R"({"a":[1,1,1,0,-3,0.25,1e+300,"1.0",2]})");
  const json plain = json::parse(R"({"m":"x","b":[1,true,null,0.25,{"k":-7}]})");
  EXPECT_EQ(canonical(plain), dumped(plain));
}

// Bytes that are not UTF-8 (a string set by code, not parsed) never throw:
// each becomes U+FFFD, and the text is JSON.
TEST(JsonWrite, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  const json doc = {{"text", std::string("ok \xFF \xC3 end")}};
  std::string text;
  ASSERT_NO_THROW(text = json_text(doc));
  EXPECT_EQ(text, "{\"text\":\"ok \xEF\xBF\xBD \xEF\xBF\xBD end\"}");
  EXPECT_TRUE(json::accept(text));
}

}  // namespace
}  // namespace modelgw::util
