#include "rank_table.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "blob_format.h"
#include "byte_hash.h"

namespace modelgw::tokenizer {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the embedded rank tables and short keys are little-endian; add byte swapping for this target");

std::uint32_t u32_at(const unsigned char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

[[noreturn]] void malformed(const char* why) {
  throw std::runtime_error(std::string("modelgw tokenizer: malformed embedded rank table: ") + why);
}

}  // namespace

RankTable::RankTable(std::span<const unsigned char> blob) {
  // The converter verified the content at build time; these checks only
  // guard against a build that embedded the wrong file.
  if (blob.size() < blob::kHeaderSize || !std::equal(blob::kMagic.begin(), blob::kMagic.end(), blob.begin()))
    malformed("bad magic");
  const unsigned char* base = blob.data();
  count_ = u32_at(base + 8);
  const std::size_t pattern_size = u32_at(base + 12);
  const std::size_t bytes_size = u32_at(base + 16);
  const std::size_t arrays = blob::kHeaderSize + blob::padded4(pattern_size);
  if (count_ == 0 || bytes_size >= blob::kMaxTotalBytes ||
      blob.size() != arrays + 4 * count_ + 4 * (count_ + 1) + bytes_size)
    malformed("size mismatch");

  pattern_ = {reinterpret_cast<const char*>(base + blob::kHeaderSize), pattern_size};
  arrays_ = base + arrays;
  bytes_ = reinterpret_cast<const char*>(arrays_ + 4 * (2 * count_ + 1));

  // Load factor at most 1/2: most lookups are misses, and linear probing
  // keeps misses short only while the table is sparse.
  const std::size_t capacity = std::bit_ceil(count_ * 2);
  slots_.assign(capacity, Slot{0, 0, 0});
  mask_ = capacity - 1;
  pair_ranks_.assign(std::size_t{1} << 16, kNoRank);
  const std::size_t filter_bits = std::bit_ceil(count_ * 8);
  filter_.assign(filter_bits / 64, 0);
  filter_mask_ = filter_bits - 1;
  std::fill(std::begin(byte_ranks_), std::end(byte_ranks_), kNoRank);

  for (std::size_t i = 0; i < count_; ++i) {
    const std::uint32_t begin = u32(count_ + i);
    const std::uint32_t end = u32(count_ + i + 1);
    if (end <= begin || end > bytes_size || end - begin > blob::kMaxTokenBytes) malformed("bad token offset");
    const std::uint32_t r = u32(i);
    if (r == kNoRank) malformed("bad rank");
    const std::string_view bytes(bytes_ + begin, end - begin);
    max_len_ = std::max(max_len_, bytes.size());
    if (bytes.size() == 1) byte_ranks_[static_cast<unsigned char>(bytes[0])] = r;
    if (bytes.size() == 2) pair_ranks_[static_cast<std::uint16_t>(hashing::short_key(bytes))] = r;

    std::uint64_t key = 0;
    std::uint64_t hash = 0;
    if (bytes.size() <= 8) {
      key = hashing::short_key(bytes);
      hash = hashing::hash_short(key, bytes.size());
    } else {
      key = hash = hashing::hash_long(bytes);
    }
    for (const std::size_t bit : {static_cast<std::size_t>(hash >> 32) & filter_mask_,
                                  static_cast<std::size_t>(hash >> 43) & filter_mask_})
      filter_[bit >> 6] |= std::uint64_t{1} << (bit & 63);
    std::size_t at = static_cast<std::size_t>(hash) & mask_;
    while ((slots_[at].offset_len & 0xFF) != 0) at = (at + 1) & mask_;
    slots_[at] = Slot{key, r, (begin << 8) | static_cast<std::uint32_t>(bytes.size())};
  }
  for (std::uint32_t r : byte_ranks_)
    if (r == kNoRank) malformed("a byte has no token");
}

std::uint32_t RankTable::u32(std::size_t index) const noexcept {
  return u32_at(arrays_ + 4 * index);
}

std::uint32_t RankTable::rank(std::string_view bytes) const noexcept {
  const std::size_t n = bytes.size();
  if (n == 2) return pair_ranks_[static_cast<std::uint16_t>(hashing::short_key(bytes))];
  if (n == 0 || n > max_len_) return kNoRank;
  if (n > 8) return rank_long(bytes);
  const std::uint64_t key = hashing::short_key(bytes);
  const std::uint64_t hash = hashing::hash_short(key, n);
  if (!maybe_present(hash)) return kNoRank;
  for (std::size_t at = static_cast<std::size_t>(hash) & mask_;; at = (at + 1) & mask_) {
    const Slot& s = slots_[at];
    const std::uint32_t len = s.offset_len & 0xFF;
    if (len == 0) return kNoRank;
    if (s.key == key && len == n) return s.rank;
  }
}

std::uint32_t RankTable::rank_long(std::string_view bytes) const noexcept {
  const std::uint64_t hash = hashing::hash_long(bytes);
  if (!maybe_present(hash)) return kNoRank;
  for (std::size_t at = static_cast<std::size_t>(hash) & mask_;; at = (at + 1) & mask_) {
    const Slot& s = slots_[at];
    const std::uint32_t len = s.offset_len & 0xFF;
    if (len == 0) return kNoRank;
    if (s.key == hash && len == bytes.size() &&
        std::memcmp(bytes_ + (s.offset_len >> 8), bytes.data(), len) == 0)
      return s.rank;
  }
}

std::string_view RankTable::token_bytes(std::uint32_t rank) const noexcept {
  // Tokens are stored in rank order, so a binary search over the ranks finds it.
  std::size_t lo = 0;
  std::size_t hi = count_;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (u32(mid) < rank) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == count_ || u32(lo) != rank) return {};
  const std::uint32_t begin = u32(count_ + lo);
  return {bytes_ + begin, u32(count_ + lo + 1) - begin};
}

}  // namespace modelgw::tokenizer
