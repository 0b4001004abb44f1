// Expected token ids for known strings, one table per encoding. The values
// were produced by the npm package tiktoken 1.0.22 (OpenAI's Rust tiktoken
// compiled to WebAssembly) with encode_ordinary, when the tests were written,
// and are hard-coded here: the tests need no node at run time.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace modelgw::tokenizer::testing {

struct Vector {
  std::string_view label;
  std::string_view text;
  std::vector<std::uint32_t> ids;
};

const std::vector<Vector>& o200k_vectors();
const std::vector<Vector>& cl100k_vectors();

}  // namespace modelgw::tokenizer::testing
