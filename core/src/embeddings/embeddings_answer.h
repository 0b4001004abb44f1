// The answer of POST /v1/embeddings: the provider's answer for each batch of
// the inputs (plugin.h, "embeddings": one item per input, indexed from 0 in
// its batch) joined into one list in input order, with the gateway's
// request_id, the alias and the summed usage. The vectors are relayed as the
// text the plugin wrote: no number is parsed, so 1,536 floats cost a copy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace modelgw::embeddings {

class EmbeddingsAnswer {
 public:
  EmbeddingsAnswer(std::string_view request_id, std::string_view alias, std::size_t inputs);

  // One batch's body, for inputs [from, from + count): false when it is not
  // the shape plugin.h promises (not a list, or not `count` items).
  bool add(std::string_view batch, std::size_t from, std::size_t count);
  // The joined body, with usage; call once after every batch was added.
  std::string finish(std::int64_t prompt_tokens);

 private:
  std::size_t inputs_;
  std::string out_;
  std::size_t added_ = 0;
};

}  // namespace modelgw::embeddings
