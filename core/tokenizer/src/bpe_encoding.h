// An Encoding backed by an embedded rank table: tiktoken's encode_ordinary.
#pragma once

#include <span>
#include <string>

#include "modelgw/tokenizer.h"
#include "pretokenizer.h"
#include "rank_table.h"

namespace modelgw::tokenizer {

class BpeEncoding final : public Encoding {
 public:
  // Throws std::runtime_error on a malformed blob or pattern.
  BpeEncoding(std::string name, std::span<const unsigned char> blob);

  std::string_view name() const override { return name_; }
  std::size_t count(std::string_view utf8) const override;
  std::vector<std::uint32_t> encode(std::string_view utf8) const override;

  const RankTable& table() const noexcept { return table_; }
  const PreTokenizer& pretokenizer() const noexcept { return pretokenizer_; }

 private:
  std::string name_;
  RankTable table_;
  PreTokenizer pretokenizer_;
};

// Concatenates the bytes of `tokens` (unknown ranks are skipped): the
// inverse of encode, for tests and diagnostics.
std::string decode(const BpeEncoding& encoding, std::span<const std::uint32_t> tokens);

}  // namespace modelgw::tokenizer
