// The input format of the targets that feed bytes in pieces, as a socket
// delivers them: a first line of decimal offsets where the payload is cut
// ("3 17 40", any non-digit separates; offsets outside the payload and past
// the 64th are ignored), then the payload. "\n" + a file is that file in one
// piece, so any fixture becomes a seed.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace fuzz {

struct SplitInput {
  std::string_view payload;
  std::vector<std::string_view> pieces;  // the payload cut at the offsets; none empty
};

SplitInput read_split_input(std::string_view data);

// `payload` one byte per piece: every offset a cut.
std::vector<std::string_view> byte_pieces(std::string_view payload);

}  // namespace fuzz
