// The mergeable ranks of one encoding: a read-only view over an embedded
// blob (see blob_format.h) plus lookup indexes built once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace modelgw::tokenizer {

class RankTable {
 public:
  static constexpr std::uint32_t kNoRank = UINT32_MAX;
  // Throws std::runtime_error when the blob is malformed. The blob must
  // outlive the table (it is embedded in the binary, so it does).
  explicit RankTable(std::span<const unsigned char> blob);

  // The rank of the token whose bytes are exactly `bytes`, or kNoRank.
  std::uint32_t rank(std::string_view bytes) const noexcept;
  // The rank of the single-byte token `b` (every byte has one: the converter checks).
  std::uint32_t byte_rank(unsigned char b) const noexcept { return byte_ranks_[b]; }
  // The bytes of the token with rank `rank`; empty when there is none.
  std::string_view token_bytes(std::uint32_t rank) const noexcept;

  std::size_t size() const noexcept { return count_; }
  // The pre-tokenizer regex shipped with the ranks, in the package's syntax.
  std::string_view pattern() const noexcept { return pattern_; }

 private:
  // Byte-pair merging mostly asks about short spans, and most answers are
  // "no such token", so a lookup should touch one cache line. A slot holds a
  // token of up to 8 bytes inline (its bytes are the key: no comparison
  // elsewhere in memory); a longer token is keyed by its 64-bit hash and
  // confirmed against the blob only on a match.
  struct Slot {
    std::uint64_t key;
    std::uint32_t rank;
    std::uint32_t offset_len;  // offset << 8 | length; length 0 marks an empty slot
  };

  std::uint32_t u32(std::size_t index) const noexcept;  // index into the rank/offset arrays
  std::uint32_t rank_long(std::string_view bytes) const noexcept;

  std::size_t count_ = 0;
  std::size_t max_len_ = 0;
  std::string_view pattern_;
  const unsigned char* arrays_ = nullptr;  // rank[count_] then offset[count_ + 1], little-endian
  const char* bytes_ = nullptr;
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::vector<std::uint32_t> pair_ranks_;  // every 2-byte string, indexed directly: 256 KiB
  // A Bloom filter (8 bits per token, 2 probes, ~3% false positives) small
  // enough to stay in L2: most lookups are misses and end here, without the
  // cache miss into the multi-megabyte slot table.
  std::vector<std::uint64_t> filter_;
  std::size_t filter_mask_ = 0;  // in bits

  bool maybe_present(std::uint64_t hash) const noexcept {
    const std::size_t a = static_cast<std::size_t>(hash >> 32) & filter_mask_;
    const std::size_t b = static_cast<std::size_t>(hash >> 43) & filter_mask_;
    return ((filter_[a >> 6] >> (a & 63)) & (filter_[b >> 6] >> (b & 63)) & 1) != 0;
  }
  std::uint32_t byte_ranks_[256] = {};
};

}  // namespace modelgw::tokenizer
