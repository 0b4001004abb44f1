// The reading of a client's POST /v1/embeddings body and the join of its
// batches' answers: the JSON checks (util/json_body.h), the embeddings checks
// (embeddings/embeddings_request.h), each batch's body, and
// embeddings/embeddings_answer.h on the batch bodies as answers (the joiner
// must never crash or emit something that is not JSON on any text a plugin
// could write). Input: the body as sent.
//
// Checks: nothing throws; a refusal is a 400 with a code, a bounded message
// and param; an accepted body has at least one input, every input a
// non-empty string or a token array, and every batch serialises with its
// slice; joining valid list answers gives valid JSON with one item per input.
#include "embeddings/embeddings_answer.h"
#include "embeddings/embeddings_request.h"
#include "errors/api_error.h"
#include "util/json_body.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

namespace {

using nlohmann::json;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "FUZZ FINDING (embeddings request): %s\n", what.c_str());
  std::abort();
}

void check_refusal(const modelgw::errors::ApiError& e) {
  constexpr std::size_t kMax = 2048;
  if (e.status != 400 || e.code.empty() || e.message.empty())
    finding("a refusal " + std::to_string(e.status) + " '" + e.code + "' with message '" + e.message + "'");
  if (e.message.size() > kMax || e.param.size() > kMax)
    finding("a refusal message or param of " + std::to_string(e.message.size() + e.param.size()) + " bytes");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  auto parsed = modelgw::util::parse_json_object(body, "model and input");
  if (const auto* refusal = std::get_if<modelgw::errors::ApiError>(&parsed)) {
    check_refusal(*refusal);
    return 0;
  }
  auto checked = modelgw::embeddings::check_embeddings_request(std::get<json>(std::move(parsed)));
  if (const auto* refusal = std::get_if<modelgw::errors::ApiError>(&checked)) {
    check_refusal(*refusal);
    return 0;
  }
  const auto& request = std::get<modelgw::embeddings::EmbeddingsRequest>(checked);
  const std::size_t n = request.input.size();
  if (n == 0) finding("an accepted request with no input");
  for (const auto& item : request.input) {
    if (request.tokens ? !item.is_array() || item.empty()
                       : !item.is_string() || item.get_ref<const std::string&>().empty())
      finding("an accepted input that is neither a non-empty string nor a token array");
  }
  // Batches of 3: each serialises with its slice; each answered as a list
  // whose vectors are the inputs' lengths, joined in order.
  modelgw::embeddings::EmbeddingsAnswer answer("req_fuzz", request.model, n);
  for (std::size_t from = 0; from < n; from += 3) {
    const std::size_t count = std::min<std::size_t>(3, n - from);
    const json batch = json::parse(modelgw::embeddings::batch_body(request, from, count), nullptr, false);
    if (!batch.is_object() || batch["input"].size() != count) finding("a batch without its slice");
    json reply{{"object", "list"}, {"data", json::array()}};
    for (std::size_t k = 0; k < count; ++k)
      reply["data"].push_back({{"object", "embedding"}, {"index", k}, {"embedding", {0.5, -1e-3}}});
    if (!answer.add(reply.dump(), from, count)) finding("a valid batch answer refused by the join");
  }
  const json joined = json::parse(answer.finish(7), nullptr, false);
  if (!joined.is_object() || joined["data"].size() != n) finding("a join that is not one item per input");
  for (std::size_t i = 0; i < n; ++i) {
    if (joined["data"][i]["index"] != i) finding("a joined item out of order");
  }
  // The same join on the raw input as a plugin's answer: never a crash.
  modelgw::embeddings::EmbeddingsAnswer hostile("req_fuzz", "m", 1);
  (void)hostile.add(body, 0, 1);
  return 0;
}
