#include "bpe.h"

#include <algorithm>
#include <functional>

namespace modelgw::tokenizer {
namespace detail {
namespace {

constexpr std::uint32_t kNoRank = RankTable::kNoRank;

// One part of the piece during merging: where it starts, its own rank (it is
// always a token), and the rank of it merged with the next part.
struct Part {
  std::uint32_t start;
  std::uint32_t token;
  std::uint32_t pair;
};

}  // namespace

void merge_by_rescan(std::string_view piece, const RankTable& table, std::vector<std::uint32_t>& out) {
  const std::size_t n = piece.size();
  if (n == 0) return;
  thread_local std::vector<Part> parts;
  parts.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t pair = i + 1 < n ? table.rank(piece.substr(i, 2)) : kNoRank;
    parts.push_back(
        {static_cast<std::uint32_t>(i), table.byte_rank(static_cast<unsigned char>(piece[i])), pair});
  }
  parts.push_back({static_cast<std::uint32_t>(n), kNoRank, kNoRank});  // end sentinel

  // parts[i] merged with parts[i + 1] spans [parts[i].start, parts[i + 2].start).
  const auto pair_rank = [&](std::size_t i) {
    if (i + 2 >= parts.size()) return kNoRank;
    return table.rank(piece.substr(parts[i].start, parts[i + 2].start - parts[i].start));
  };
  for (;;) {
    std::uint32_t best = kNoRank;
    std::size_t at = 0;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      if (parts[i].pair < best) {  // strict: the leftmost of equal ranks wins
        best = parts[i].pair;
        at = i;
      }
    }
    if (best == kNoRank) break;
    parts[at].token = best;
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(at) + 1);
    parts[at].pair = pair_rank(at);
    if (at > 0) parts[at - 1].pair = pair_rank(at - 1);
  }
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) out.push_back(parts[i].token);
}

void merge_by_heap(std::string_view piece, const RankTable& table, std::vector<std::uint32_t>& out) {
  const std::size_t n = piece.size();
  if (n == 0) return;
  // A part is named by its first byte's offset, which never changes: a merge
  // folds the right part into the left one. next[i] == n ends the list.
  thread_local std::vector<std::uint32_t> next, prev, token, pair;
  next.resize(n);
  prev.resize(n);
  token.resize(n);
  pair.resize(n);
  const auto span_rank = [&](std::size_t begin, std::size_t end) {
    return table.rank(piece.substr(begin, end - begin));
  };
  // Min-heap of (pair rank << 32 | start): pops the lowest rank, then the
  // leftmost, exactly the order of the rescan.
  thread_local std::vector<std::uint64_t> heap;
  heap.clear();
  const auto push = [&](std::uint32_t rank, std::uint32_t start) {
    heap.push_back((std::uint64_t{rank} << 32) | start);
    std::push_heap(heap.begin(), heap.end(), std::greater<>{});
  };
  for (std::size_t i = 0; i < n; ++i) {
    next[i] = static_cast<std::uint32_t>(i + 1);
    prev[i] = static_cast<std::uint32_t>(i == 0 ? n : i - 1);
    token[i] = table.byte_rank(static_cast<unsigned char>(piece[i]));
    pair[i] = i + 1 < n ? span_rank(i, i + 2) : kNoRank;
    if (pair[i] != kNoRank) push(pair[i], static_cast<std::uint32_t>(i));
  }
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>{});
    const std::uint64_t top = heap.back();
    heap.pop_back();
    const auto rank = static_cast<std::uint32_t>(top >> 32);
    const auto i = static_cast<std::uint32_t>(top);
    // Entries are never removed, only outdated: an entry is live when the
    // part still pairs at that rank. A stale one with the same rank would
    // name the same merge, so accepting it is still correct.
    if (pair[i] != rank) continue;
    const std::uint32_t j = next[i];
    token[i] = rank;
    pair[j] = kNoRank;  // j is gone
    next[i] = next[j];
    if (next[i] < n) prev[next[i]] = i;
    pair[i] = next[i] < n ? span_rank(i, next[next[i]]) : kNoRank;
    if (pair[i] != kNoRank) push(pair[i], i);
    if (i > 0) {
      const std::uint32_t p = prev[i];
      pair[p] = span_rank(p, next[i]);
      if (pair[p] != kNoRank) push(pair[p], p);
    }
  }
  for (std::size_t i = 0; i < n; i = next[i]) out.push_back(token[i]);
}

}  // namespace detail

void byte_pair_encode(std::string_view piece, const RankTable& table, std::vector<std::uint32_t>& out) {
  // Offsets are 32-bit. No request comes near 4 GiB, but if one did, merging
  // 1 GiB slices keeps it defined (a few tokens may differ at the seams).
  constexpr std::size_t kSlice = std::size_t{1} << 30;
  while (piece.size() > kSlice) {
    detail::merge_by_heap(piece.substr(0, kSlice), table, out);
    piece.remove_prefix(kSlice);
  }
  if (piece.size() == 1) {
    out.push_back(table.byte_rank(static_cast<unsigned char>(piece[0])));
  } else if (piece.size() <= detail::kRescanMaxBytes) {
    detail::merge_by_rescan(piece, table, out);
  } else {
    detail::merge_by_heap(piece, table, out);
  }
}

}  // namespace modelgw::tokenizer
