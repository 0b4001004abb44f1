// The two merge implementations must agree token for token: the heap one is
// only reached by long pieces, so it is compared with the rescan (tiktoken's
// own algorithm) on many short random pieces too.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "bpe.h"
#include "test_support.h"

namespace modelgw::tokenizer::testing {
namespace {

std::string random_piece(std::mt19937& rng) {
  // Few distinct units, so that many pairs are tokens and merges chain.
  static const std::vector<std::string> units = {"a", "b", "e",  "r", "th",   " ",
                                                 "=", "0", "中", "é", "\xff", "ing"};
  std::uniform_int_distribution<std::size_t> len(1, 60), pick(0, units.size() - 1);
  std::string s;
  for (std::size_t n = len(rng); n > 0; --n) s += units[pick(rng)];
  return s;
}

TEST(BytePairMerge, RescanAndHeapAgree) {
  std::mt19937 rng(20240611);
  for (const char* name : {"o200k_base", "cl100k_base"}) {
    const RankTable& table = bpe(name).table();
    for (int i = 0; i < 3000; ++i) {
      const std::string piece = random_piece(rng);
      std::vector<std::uint32_t> rescan, heap;
      detail::merge_by_rescan(piece, table, rescan);
      detail::merge_by_heap(piece, table, heap);
      ASSERT_EQ(rescan, heap) << name << " piece of " << piece.size() << " bytes";
    }
  }
}

TEST(BytePairMerge, SingleBytesAreTheirOwnTokens) {
  const RankTable& table = bpe("o200k_base").table();
  std::vector<std::uint32_t> out;
  byte_pair_encode("\x80", table, out);
  EXPECT_EQ(out, (std::vector<std::uint32_t>{table.byte_rank(0x80)}));
}

TEST(BytePairMerge, AppendsToTheOutput) {
  const RankTable& table = bpe("cl100k_base").table();
  std::vector<std::uint32_t> out = {7};
  byte_pair_encode("hello", table, out);  // "hello" is itself a token, so merging reaches it
  EXPECT_EQ(out, (std::vector<std::uint32_t>{7, 15339}));
}

TEST(BytePairMerge, EmptyPieceAddsNothing) {
  const RankTable& table = bpe("cl100k_base").table();
  std::vector<std::uint32_t> out;
  detail::merge_by_rescan("", table, out);
  detail::merge_by_heap("", table, out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace modelgw::tokenizer::testing
