#include "split_input.h"

#include <algorithm>

namespace fuzz {

SplitInput read_split_input(std::string_view data) {
  constexpr std::size_t kMaxCuts = 64;
  constexpr std::size_t kMaxDigits = 9;
  SplitInput in;
  const std::size_t eol = data.find('\n');
  if (eol == std::string_view::npos) return in;
  const std::string_view head = data.substr(0, eol);
  in.payload = data.substr(eol + 1);

  std::vector<std::size_t> cuts;
  std::size_t value = 0;
  std::size_t digits = 0;
  auto close = [&] {
    if (digits > 0 && value > 0 && value < in.payload.size() && cuts.size() < kMaxCuts) cuts.push_back(value);
    value = 0;
    digits = 0;
  };
  for (const char c : head) {
    if (c >= '0' && c <= '9') {
      if (digits++ < kMaxDigits) value = value * 10 + static_cast<std::size_t>(c - '0');
    } else {
      close();
    }
  }
  close();
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());

  std::size_t from = 0;
  for (const std::size_t cut : cuts) {
    in.pieces.push_back(in.payload.substr(from, cut - from));
    from = cut;
  }
  if (from < in.payload.size()) in.pieces.push_back(in.payload.substr(from));
  return in;
}

std::vector<std::string_view> byte_pieces(std::string_view payload) {
  std::vector<std::string_view> out;
  out.reserve(payload.size());
  for (std::size_t i = 0; i < payload.size(); ++i) out.push_back(payload.substr(i, 1));
  return out;
}

}  // namespace fuzz
