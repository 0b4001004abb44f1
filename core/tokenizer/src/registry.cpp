// find_encoding: the encodings this library knows, each built on first use.
#include "bpe_encoding.h"
#include "embedded_tables.h"

namespace modelgw::tokenizer {

const Encoding* find_encoding(std::string_view name) {
  // Function-local statics: C++ guarantees one thread builds each while any
  // others wait, and an encoding nobody asks for costs no memory or time.
  if (name == "o200k_base") {
    static const BpeEncoding o200k("o200k_base", embedded::o200k_base());
    return &o200k;
  }
  if (name == "cl100k_base") {
    static const BpeEncoding cl100k("cl100k_base", embedded::cl100k_base());
    return &cl100k;
  }
  return nullptr;
}

}  // namespace modelgw::tokenizer
