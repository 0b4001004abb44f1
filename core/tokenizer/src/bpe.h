// Byte-pair merging of one pre-tokenized piece: tiktoken's algorithm. Start
// from single bytes; repeatedly merge the adjacent pair whose concatenation
// has the lowest rank (the leftmost such pair on ties) until no adjacent
// pair is a token; the parts left are the tokens.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "rank_table.h"

namespace modelgw::tokenizer {

// Appends the tokens of `piece` to `out`. Does not first look the whole piece
// up (the caller does, as tiktoken does). Thread-safe: scratch space is per thread.
void byte_pair_encode(std::string_view piece, const RankTable& table, std::vector<std::uint32_t>& out);

namespace detail {
// Two implementations with identical results, exposed for tests:
// the quadratic rescan tiktoken uses (fastest for the short pieces that are
// nearly all of real text) and a heap-based O(n log n) one for longer pieces
// (CJK sentences are single pieces), which also keeps a megabyte of one
// repeated letter from stalling a request thread.
void merge_by_rescan(std::string_view piece, const RankTable& table, std::vector<std::uint32_t>& out);
void merge_by_heap(std::string_view piece, const RankTable& table, std::vector<std::uint32_t>& out);
// Pieces longer than this use merge_by_heap (measured with tokenizer_bench:
// from about 24 bytes on, the heap wins on CJK text).
inline constexpr std::size_t kRescanMaxBytes = 24;
}  // namespace detail

}  // namespace modelgw::tokenizer
