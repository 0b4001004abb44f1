// The layout of an embedded rank table. Shared by the build-time converter
// (tools/bpe_convert.cpp), which writes it, and the library, which reads it,
// so the two can never disagree on an offset.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace modelgw::tokenizer::blob {

// Layout, every integer a little-endian uint32:
//   [0, 8)    magic "MGWBPE" 0x01 0x00
//   [8, 12)   token_count
//   [12, 16)  pattern_size   bytes of the pre-tokenizer regex (as the package gives it)
//   [16, 20)  bytes_size     total bytes of all tokens
//   [20, 24)  reserved, 0
//   [24, ...) pattern, zero-padded to a multiple of 4
//   then      rank[token_count]            the rank of token i
//   then      offset[token_count + 1]      token i is bytes[offset[i], offset[i + 1])
//   then      bytes[bytes_size]
// Tokens are stored in rank order; the rank array still exists so that a
// vocabulary with gaps in its ranks needs no other format.
inline constexpr std::array<unsigned char, 8> kMagic = {'M', 'G', 'W', 'B', 'P', 'E', 0x01, 0x00};
inline constexpr std::size_t kHeaderSize = 24;

// Limits the runtime's compact index relies on, enforced by the converter
// (o200k_base: longest token 128 bytes, 1.4 MB of token bytes in all).
inline constexpr std::size_t kMaxTokenBytes = 255;
inline constexpr std::size_t kMaxTotalBytes = std::size_t{1} << 24;

inline constexpr std::size_t padded4(std::size_t n) {
  return (n + 3) & ~std::size_t{3};
}

}  // namespace modelgw::tokenizer::blob
