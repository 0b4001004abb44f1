// Input the gateway should never see (it validates UTF-8 first) must still
// never crash, and concurrent use must give the same results as serial use.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "reference_vectors.h"
#include "test_support.h"

namespace modelgw::tokenizer::testing {
namespace {

using namespace std::string_literals;

const std::vector<std::string>& invalid_utf8() {
  static const std::vector<std::string> cases = {
      "\xff",
      "\xff\xfe\xfd",
      "abc\x80"
      "def",
      "hello \xe4\xb8",                    // truncated 3-byte sequence at the end
      "\xe4\xb8 world",                    // truncated in front of text
      "\xc0\xaf overlong",                 // overlong '/'
      "\xed\xa0\x80 surrogate",            // UTF-16 surrogate
      "\xf4\x90\x80\x80 too big",          // above U+10FFFF
      "ok \xf0\x9f\x98 \xf0\x9f\x98\x80",  // a cut emoji, then a whole one
      "a\0b\0\0c"s,                        // NUL bytes are valid UTF-8
      "   \x80   \x80\n\x80",
  };
  return cases;
}

TEST(Robustness, InvalidUtf8IsCountedAndKeptByteForByte) {
  for (const char* name : {"o200k_base", "cl100k_base"}) {
    const BpeEncoding& enc = bpe(name);
    for (const std::string& s : invalid_utf8()) {
      const auto ids = enc.encode(s);
      EXPECT_FALSE(ids.empty()) << name;
      EXPECT_EQ(enc.count(s), ids.size()) << name;
      EXPECT_EQ(decode(enc, ids), s) << name;
    }
  }
}

TEST(Robustness, ValidTextAroundInvalidBytesIsEncodedAsUsual) {
  // "abc" and "def" are encoded as they would be alone; the stray byte is one token.
  const Encoding* enc = find_encoding("o200k_base");
  auto expected = enc->encode("abc");
  expected.push_back(bpe("o200k_base").table().byte_rank(0x80));
  for (std::uint32_t id : enc->encode("def")) expected.push_back(id);
  EXPECT_EQ(enc->encode("abc\x80"
                        "def"),
            expected);
}

TEST(Robustness, RandomBytesNeverCrash) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<std::size_t> len(0, 400);
  for (const char* name : {"o200k_base", "cl100k_base"}) {
    const BpeEncoding& enc = bpe(name);
    for (int i = 0; i < 300; ++i) {
      std::string s(len(rng), '\0');
      for (char& c : s) c = static_cast<char>(byte(rng));
      const auto ids = enc.encode(s);
      ASSERT_EQ(decode(enc, ids), s) << name;
      ASSERT_EQ(enc.count(s), ids.size()) << name;
    }
  }
}

TEST(Robustness, AMegabyteWithoutSpacesStaysFast) {
  // One 1 MiB piece: the quadratic rescan would take minutes; the heap merge
  // takes well under a second (the ctest timeout is the check).
  std::string s;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> letter('a', 'z');
  for (int i = 0; i < (1 << 20); ++i) s += static_cast<char>(letter(rng));
  const BpeEncoding& enc = bpe("o200k_base");
  const auto ids = enc.encode(s);
  EXPECT_GT(ids.size(), s.size() / 8);
  EXPECT_EQ(decode(enc, ids), s);
}

TEST(Robustness, ConcurrentUseMatchesSerialUse) {
  const auto& vectors = o200k_vectors();
  const auto& cl_vectors = cl100k_vectors();
  std::vector<std::thread> threads;
  std::vector<int> failures(6, 0);
  for (std::size_t t = 0; t < failures.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 40; ++round) {
        for (const Vector& v : vectors)
          if (find_encoding("o200k_base")->encode(v.text) != v.ids) ++failures[t];
        for (const Vector& v : cl_vectors)
          if (find_encoding("cl100k_base")->count(v.text) != v.ids.size()) ++failures[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int f : failures) EXPECT_EQ(f, 0);
}

}  // namespace
}  // namespace modelgw::tokenizer::testing
