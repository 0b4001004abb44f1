// find_encoding and the embedded rank tables.
#include <gtest/gtest.h>

#include <array>
#include <stdexcept>
#include <thread>
#include <vector>

#include "embedded_tables.h"
#include "rank_table.h"
#include "test_support.h"

namespace modelgw::tokenizer::testing {
namespace {

TEST(FindEncoding, KnowsBothEncodingsByName) {
  const Encoding* o200k = find_encoding("o200k_base");
  const Encoding* cl100k = find_encoding("cl100k_base");
  ASSERT_NE(o200k, nullptr);
  ASSERT_NE(cl100k, nullptr);
  EXPECT_EQ(o200k->name(), "o200k_base");
  EXPECT_EQ(cl100k->name(), "cl100k_base");
}

TEST(FindEncoding, ReturnsNullForAnUnknownName) {
  EXPECT_EQ(find_encoding(""), nullptr);
  EXPECT_EQ(find_encoding("p50k_base"), nullptr);
  EXPECT_EQ(find_encoding("O200K_BASE"), nullptr);
  EXPECT_EQ(find_encoding("o200k_base "), nullptr);
}

TEST(FindEncoding, ReturnsTheSameInstanceEveryTime) {
  EXPECT_EQ(find_encoding("o200k_base"), find_encoding("o200k_base"));
}

TEST(FindEncoding, ConcurrentFirstCallsAgree) {
  // Many threads asking at once must all get the one instance (the lazy
  // build runs once); cl100k may or may not be built already, both are fine.
  std::vector<std::thread> threads;
  std::array<const Encoding*, 8> seen{};
  for (std::size_t i = 0; i < seen.size(); ++i)
    threads.emplace_back([&seen, i] { seen[i] = find_encoding("cl100k_base"); });
  for (auto& t : threads) t.join();
  for (const Encoding* e : seen) EXPECT_EQ(e, find_encoding("cl100k_base"));
}

TEST(RankTable, HoldsTheVerifiedNumberOfRanks) {
  EXPECT_EQ(bpe("o200k_base").table().size(), 199998u);
  EXPECT_EQ(bpe("cl100k_base").table().size(), 100256u);
}

TEST(RankTable, EveryByteIsAToken) {
  for (const char* name : {"o200k_base", "cl100k_base"}) {
    const RankTable& t = bpe(name).table();
    for (int b = 0; b < 256; ++b) {
      const char c = static_cast<char>(b);
      EXPECT_EQ(t.rank(std::string_view(&c, 1)), t.byte_rank(static_cast<unsigned char>(b)))
          << name << " " << b;
      EXPECT_NE(t.byte_rank(static_cast<unsigned char>(b)), RankTable::kNoRank);
    }
  }
}

TEST(RankTable, LooksUpTokensBothWays) {
  const RankTable& t = bpe("o200k_base").table();
  EXPECT_EQ(t.rank("hello"), 24912u);
  EXPECT_EQ(t.rank(" world"), 2375u);
  EXPECT_EQ(t.token_bytes(24912), "hello");
  EXPECT_EQ(t.rank("!"), 0u);  // the first rank
  EXPECT_EQ(t.rank(""), RankTable::kNoRank);
  EXPECT_EQ(t.rank("definitely not one token"), RankTable::kNoRank);
  EXPECT_TRUE(t.token_bytes(199998).empty());  // past the last rank
  const RankTable& c = bpe("cl100k_base").table();
  EXPECT_EQ(c.rank("hello"), 15339u);
  EXPECT_EQ(c.token_bytes(100255).empty(), false);
  EXPECT_TRUE(c.token_bytes(100256).empty());
}

TEST(RankTable, CarriesThePackagesPattern) {
  // The lookahead alternative is what needs a backtracking engine.
  EXPECT_NE(bpe("o200k_base").table().pattern().find(R"(\s+(?!\S))"), std::string_view::npos);
  EXPECT_NE(bpe("cl100k_base").table().pattern().find(R"(\p{N}{1,3})"), std::string_view::npos);
  EXPECT_NE(bpe("o200k_base").table().pattern(), bpe("cl100k_base").table().pattern());
}

TEST(RankTable, RejectsAMalformedBlob) {
  const std::array<unsigned char, 8> junk{};
  EXPECT_THROW(RankTable(std::span<const unsigned char>(junk)), std::runtime_error);
  // The right magic with a truncated body.
  const auto real = embedded::cl100k_base();
  EXPECT_THROW(RankTable(real.first(real.size() - 1)), std::runtime_error);
}

TEST(PreTokenizer, IsJitCompiled) {
  // Not required for correctness, but the throughput figures assume it.
  EXPECT_TRUE(bpe("o200k_base").pretokenizer().jit());
}

}  // namespace
}  // namespace modelgw::tokenizer::testing
