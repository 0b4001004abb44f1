// Token ids of known strings, for both encodings, against the reference
// values of the npm package tiktoken (reference_vectors.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reference_vectors.h"
#include "test_support.h"

namespace modelgw::tokenizer::testing {
namespace {

struct VectorCase {
  std::string encoding;
  const Vector* vector;
};

std::vector<VectorCase> all_vectors() {
  std::vector<VectorCase> out;
  for (const Vector& v : o200k_vectors()) out.push_back({"o200k_base", &v});
  for (const Vector& v : cl100k_vectors()) out.push_back({"cl100k_base", &v});
  return out;
}

class ReferenceVectors : public ::testing::TestWithParam<VectorCase> {};

TEST_P(ReferenceVectors, EncodeGivesTheReferenceIds) {
  const auto& [encoding, v] = GetParam();
  const Encoding* enc = find_encoding(encoding);
  ASSERT_NE(enc, nullptr);
  EXPECT_EQ(enc->encode(v->text), v->ids) << v->label;
}

TEST_P(ReferenceVectors, CountEqualsTheNumberOfIds) {
  const auto& [encoding, v] = GetParam();
  EXPECT_EQ(find_encoding(encoding)->count(v->text), v->ids.size()) << v->label;
}

TEST_P(ReferenceVectors, TokensDecodeBackToTheText) {
  const auto& [encoding, v] = GetParam();
  const BpeEncoding& enc = bpe(encoding);
  EXPECT_EQ(decode(enc, enc.encode(v->text)), v->text) << v->label;
}

INSTANTIATE_TEST_SUITE_P(Tiktoken, ReferenceVectors, ::testing::ValuesIn(all_vectors()),
                         [](const ::testing::TestParamInfo<VectorCase>& info) {
                           return test_name(info.param.encoding + "_" +
                                            std::string(info.param.vector->label));
                         });

TEST(Encode, HelloWorld) {
  EXPECT_EQ(find_encoding("o200k_base")->encode("hello world"), (std::vector<std::uint32_t>{24912, 2375}));
  EXPECT_EQ(find_encoding("cl100k_base")->encode("hello world"), (std::vector<std::uint32_t>{15339, 1917}));
}

TEST(Encode, EmptyStringHasNoTokens) {
  for (const char* name : {"o200k_base", "cl100k_base"}) {
    EXPECT_TRUE(find_encoding(name)->encode("").empty());
    EXPECT_EQ(find_encoding(name)->count(""), 0u);
  }
}

TEST(Encode, NumbersSplitIntoGroupsOfAtMostThreeDigits) {
  // Both patterns split digit runs with \p{N}{1,3}: ten digits are
  // 123|456|789|0, whatever the vocabulary.
  const Encoding* cl100k = find_encoding("cl100k_base");
  EXPECT_EQ(cl100k->encode("1234567890"), (std::vector<std::uint32_t>{4513, 10961, 16474, 15}));
  EXPECT_EQ(cl100k->count("1"), 1u);
  EXPECT_EQ(cl100k->count("12"), 1u);
  EXPECT_EQ(cl100k->count("123"), 1u);
  EXPECT_EQ(cl100k->count("1234"), 2u);
}

TEST(Encode, SpecialTokenTextIsOrdinaryText) {
  // Never the special ids (o200k <|endoftext|> is 199999, cl100k 100257).
  for (const auto& [name, special] : {std::pair{"o200k_base", 199999u}, std::pair{"cl100k_base", 100257u}}) {
    const auto ids = find_encoding(name)->encode("<|endoftext|>");
    EXPECT_GT(ids.size(), 1u) << name;
    for (std::uint32_t id : ids) EXPECT_NE(id, special) << name;
  }
}

// Long single pieces go through the heap-based merge (longer than
// detail::kRescanMaxBytes); ids and counts from the npm package.
struct LongCase {
  const char* encoding;
  const char* label;
  std::string text;
  std::size_t count;
  std::vector<std::uint32_t> head;  // first 4 ids
  std::vector<std::uint32_t> tail;  // last 4 ids
};

std::vector<LongCase> long_cases() {
  const std::string a = repeat("a", 1000), ab = repeat("ab", 700), zh = repeat("中", 700),
                    spaces = "x" + repeat(" ", 3000) + "y", newlines = repeat("\n", 500),
                    bangs = repeat("!", 999), ones = repeat("1", 1000),
                    alphabet = repeat("abcdefghijklmnopqrstuvwxyz", 50), emoji = repeat("😀", 200);
  return {
      {"o200k_base", "a_x1000", a, 125, {117525, 117525, 117525, 117525}, {117525, 117525, 117525, 117525}},
      {"o200k_base", "ab_x700", ab, 350, {68822, 68822, 68822, 68822}, {68822, 68822, 68822, 68822}},
      {"o200k_base", "zh_x700", zh, 700, {1404, 1404, 1404, 1404}, {1404, 1404, 1404, 1404}},
      {"o200k_base", "spaces_x3000", spaces, 26, {87, 72056, 72056, 72056}, {72056, 72056, 16006, 342}},
      {"o200k_base",
       "newlines_x500",
       newlines,
       32,
       {64469, 64469, 64469, 64469},
       {64469, 64469, 64469, 4707}},
      {"o200k_base",
       "bangs_x999",
       bangs,
       64,
       {132688, 132688, 132688, 132688},
       {132688, 132688, 14401, 10880}},
      {"o200k_base", "ones_x1000", ones, 334, {8780, 8780, 8780, 8780}, {8780, 8780, 8780, 16}},
      {"o200k_base",
       "alphabet_x50",
       alphabet,
       50,
       {161518, 161518, 161518, 161518},
       {161518, 161518, 161518, 161518}},
      {"o200k_base", "emoji_x200", emoji, 200, {84083, 84083, 84083, 84083}, {84083, 84083, 84083, 84083}},
      {"cl100k_base", "a_x1000", a, 125, {70540, 70540, 70540, 70540}, {70540, 70540, 70540, 70540}},
      {"cl100k_base", "ab_x700", ab, 700, {370, 370, 370, 370}, {370, 370, 370, 370}},
      {"cl100k_base", "zh_x700", zh, 700, {16325, 16325, 16325, 16325}, {16325, 16325, 16325, 16325}},
      {"cl100k_base", "spaces_x3000", spaces, 26, {87, 58040, 58040, 58040}, {58040, 58040, 8299, 379}},
      {"cl100k_base",
       "newlines_x500",
       newlines,
       17,
       {80183, 80183, 80183, 80183},
       {80183, 80183, 25638, 1038}},
      {"cl100k_base", "bangs_x999", bangs, 126, {51767, 51767, 51767, 51767}, {51767, 51767, 17523, 12340}},
      {"cl100k_base", "ones_x1000", ones, 334, {5037, 5037, 5037, 5037}, {5037, 5037, 5037, 16}},
      {"cl100k_base",
       "alphabet_x50",
       alphabet,
       50,
       {68612, 68612, 68612, 68612},
       {68612, 68612, 68612, 68612}},
      {"cl100k_base", "emoji_x200", emoji, 400, {76460, 222, 76460, 222}, {76460, 222, 76460, 222}},
  };
}

class LongInputs : public ::testing::TestWithParam<LongCase> {};

TEST_P(LongInputs, MatchTheReference) {
  const LongCase& c = GetParam();
  const Encoding* enc = find_encoding(c.encoding);
  const auto ids = enc->encode(c.text);
  ASSERT_EQ(ids.size(), c.count);
  EXPECT_EQ(std::vector<std::uint32_t>(ids.begin(), ids.begin() + 4), c.head);
  EXPECT_EQ(std::vector<std::uint32_t>(ids.end() - 4, ids.end()), c.tail);
  EXPECT_EQ(enc->count(c.text), c.count);
  EXPECT_EQ(decode(bpe(c.encoding), ids), c.text);
}

INSTANTIATE_TEST_SUITE_P(Tiktoken, LongInputs, ::testing::ValuesIn(long_cases()),
                         [](const ::testing::TestParamInfo<LongCase>& info) {
                           return test_name(std::string(info.param.encoding) + "_" + info.param.label);
                         });

}  // namespace
}  // namespace modelgw::tokenizer::testing
