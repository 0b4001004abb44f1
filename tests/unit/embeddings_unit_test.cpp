// The embeddings door's pieces: the body's checks, the batch a provider is
// sent, the join of batches' answers (numbers relayed as written), catalog
// entries of kind embedding, and cache writes in the price of a request.
#include "app/config_loader.h"
#include "chat/body_members.h"
#include "embeddings/embeddings_answer.h"
#include "embeddings/embeddings_request.h"

#include <modelgw/pricing.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using modelgw::embeddings::check_embeddings_request;
using modelgw::embeddings::EmbeddingsAnswer;
using modelgw::embeddings::EmbeddingsRequest;
using json = nlohmann::json;

EmbeddingsRequest checked(const json& body) {
  auto r = check_embeddings_request(body);
  if (auto* err = std::get_if<modelgw::errors::ApiError>(&r)) ADD_FAILURE() << err->message;
  return std::get<EmbeddingsRequest>(std::move(r));
}

std::string param_of(const json& body) {
  auto r = check_embeddings_request(body);
  if (auto* err = std::get_if<modelgw::errors::ApiError>(&r)) return err->param;
  return "<accepted>";
}

TEST(EmbeddingsRequest, EveryInputFormIsAnArrayForTheProvider) {
  EXPECT_EQ(checked({{"model", "e"}, {"input", "one"}}).input, json::array({"one"}));
  EXPECT_EQ(checked({{"model", "e"}, {"input", {"a", "b"}}}).input, json::array({"a", "b"}));
  const auto one_tokens = checked({{"model", "e"}, {"input", {1, 2, 3}}});
  EXPECT_TRUE(one_tokens.tokens);
  EXPECT_EQ(one_tokens.input, json::array({json::array({1, 2, 3})}));
  const auto many = checked({{"model", "e"},
                             {"input", {{1}, {2, 3}}},
                             {"encoding_format", "base64"},
                             {"dimensions", 8},
                             {"user", "u"}});
  EXPECT_TRUE(many.tokens);
  EXPECT_EQ(many.encoding_format, "base64");
  EXPECT_EQ(many.dimensions, 8);
  EXPECT_EQ(many.user, "u");
}

TEST(EmbeddingsRequest, ErrorsNameTheMember) {
  EXPECT_EQ(param_of({{"input", "x"}}), "model");
  EXPECT_EQ(param_of({{"model", "e"}}), "input");
  EXPECT_EQ(param_of({{"model", "e"}, {"input", json::array()}}), "input");
  EXPECT_EQ(param_of({{"model", "e"}, {"input", ""}}), "input");
  EXPECT_EQ(param_of({{"model", "e"}, {"input", {"a", ""}}}), "input[1]");
  EXPECT_EQ(param_of({{"model", "e"}, {"input", {"a", 1}}}), "input[1]");
  EXPECT_EQ(param_of({{"model", "e"}, {"input", {{1}, "a"}}}), "input[1]");
  EXPECT_EQ(param_of({{"model", "e"}, {"input", {{1, -2}}}}), "input[0][1]");
  EXPECT_EQ(param_of({{"model", "e"}, {"input", 7}}), "input");
  EXPECT_EQ(param_of({{"model", "e"}, {"input", "x"}, {"encoding_format", "int8"}}), "encoding_format");
  EXPECT_EQ(param_of({{"model", "e"}, {"input", "x"}, {"dimensions", 0}}), "dimensions");
  EXPECT_EQ(param_of({{"model", "e"}, {"input", "x"}, {"user", 3}}), "user");
  EXPECT_EQ(param_of({{"model", "e"}, {"input", "x"}, {"temperature", 1}}), "temperature");
  json big = json::array();
  for (std::size_t i = 0; i <= modelgw::embeddings::kMaxInputs; ++i) big.push_back("x");
  EXPECT_EQ(param_of({{"model", "e"}, {"input", big}}), "input");
}

TEST(EmbeddingsRequest, ABatchHoldsItsSliceAndTheOptions) {
  const auto r = checked({{"model", "e"}, {"input", {"a", "b", "c"}}, {"dimensions", 4}, {"user", "u"}});
  const json batch = json::parse(modelgw::embeddings::batch_body(r, 1, 2));
  EXPECT_EQ(batch, json({{"model", "e"},
                         {"input", {"b", "c"}},
                         {"encoding_format", "float"},
                         {"dimensions", 4},
                         {"user", "u"}}));
}

TEST(EmbeddingsAnswer, BatchesAreJoinedInOrderWithTheirNumbersAsWritten) {
  EmbeddingsAnswer answer("req_1", "emb", 3);
  const std::string first =
      R"({"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.10000000000000001,-2e-3]},)"
      R"( {"object":"embedding","index":1,"embedding":[1.5E+2, 0]}],"model":"emb","usage":{"prompt_tokens":4,"total_tokens":4}})";
  const std::string second =
      R"({"data":[{"index":0,"object":"embedding","embedding":"AAAAAA=="}],"object":"list"})";
  ASSERT_TRUE(answer.add(first, 0, 2));
  ASSERT_TRUE(answer.add(second, 2, 1));
  const std::string body = answer.finish(9);
  // The numbers' text is the vendor's, byte for byte.
  EXPECT_NE(body.find("[0.10000000000000001,-2e-3]"), std::string::npos) << body;
  EXPECT_NE(body.find("[1.5E+2, 0]"), std::string::npos) << body;
  const json doc = json::parse(body);
  EXPECT_EQ(doc["request_id"], "req_1");
  EXPECT_EQ(doc["object"], "list");
  EXPECT_EQ(doc["model"], "emb");
  ASSERT_EQ(doc["data"].size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(doc["data"][i]["index"], i);
  EXPECT_EQ(doc["data"][2]["embedding"], "AAAAAA==");
  EXPECT_EQ(doc["usage"], json({{"prompt_tokens", 9}, {"total_tokens", 9}}));
}

TEST(EmbeddingsAnswer, ABodyThatIsNotOneItemPerInputIsRefused) {
  EmbeddingsAnswer answer("req_1", "emb", 2);
  EXPECT_FALSE(answer.add(R"({"data":[{"index":0,"embedding":[1]}]})", 0, 2));
  EXPECT_FALSE(answer.add(R"({"object":"list"})", 0, 1));
  EXPECT_FALSE(answer.add(R"({"data":{}})", 0, 1));
  EXPECT_FALSE(answer.add(R"({"data":[{}]})", 0, 1));
  EXPECT_FALSE(answer.add(R"({"data":[7]})", 0, 1));
}

TEST(BodyMembers, ArrayElementsAreFoundWithoutParsing) {
  const std::string text = R"({"a":[ 1 , "x,]" , {"b":[2,3]} , [ ] ]})";
  const auto a = modelgw::chat::locate_value(text, {std::string("a")});
  ASSERT_TRUE(a);
  const auto items = modelgw::chat::array_elements(text, a->first);
  ASSERT_TRUE(items);
  ASSERT_EQ(items->size(), 4u);
  EXPECT_EQ(text.substr((*items)[1].first, (*items)[1].second - (*items)[1].first), R"("x,]")");
  EXPECT_EQ(text.substr((*items)[2].first, (*items)[2].second - (*items)[2].first), R"({"b":[2,3]})");
  EXPECT_FALSE(modelgw::chat::array_elements(text, 0)) << "an object is not an array";
  EXPECT_FALSE(modelgw::chat::array_elements("[1,", 0)) << "cut short";
}

TEST(EmbeddingCatalog, AnEmbeddingModelNeedsItsDimensionsAndATierOneKind) {
  const std::string providers = R"(
providers:
  openai: { plugin: openai, base_url: "https://api.openai.com/v1", api_key: "k" }
catalog:
  chat: { provider: openai, model: "gpt-4o-mini" }
)";
  const auto c = modelgw::config::load_text(
      providers +
      "  emb: { provider: openai, model: m, kind: embedding, dimensions: 256, max_inputs: 10 }\n");
  const auto& e = c.catalog.at("emb");
  EXPECT_TRUE(e.is_embedding());
  EXPECT_EQ(e.dimensions, 256);
  EXPECT_EQ(e.max_inputs, 10);
  EXPECT_EQ(c.catalog.at("chat").kind, "chat");
  auto error_of = [&](const std::string& extra) -> std::string {
    try {
      modelgw::config::load_text(providers + extra);
    } catch (const modelgw::config::ConfigError& err) {
      return err.what();
    }
    return "<no error>";
  };
  EXPECT_NE(
      error_of("  emb: { provider: openai, model: m, kind: embedding }\n").find("catalog.emb.dimensions"),
      std::string::npos);
  EXPECT_NE(error_of("  emb: { provider: openai, model: m, kind: vision }\n").find("catalog.emb.kind"),
            std::string::npos);
  EXPECT_NE(error_of("  emb: { provider: openai, model: m, dimensions: 3 }\n").find("kind: embedding"),
            std::string::npos);
  EXPECT_NE(error_of("  emb: { provider: openai, model: m, kind: embedding, dimensions: 3 }\n"
                     "  mixed: { route: [emb, chat] }\n")
                .find("catalog.mixed.route[1]"),
            std::string::npos);
  const auto tiered =
      modelgw::config::load_text(providers +
                                 "  emb: { provider: openai, model: m, kind: embedding, dimensions: 3 }\n"
                                 "  emb2: { provider: openai, model: m2, kind: embedding, dimensions: 3 }\n"
                                 "  svc-embed: { route: [emb, emb2] }\n");
  EXPECT_TRUE(tiered.catalog.at("svc-embed").is_embedding());
}

TEST(Cost, CacheWritesArePricedAtTheCacheWritePrice) {
  modelgw::pricing::Prices p;
  p.input = 3'000'000;  // $3 per million
  p.output = 15'000'000;
  p.cached_input = 300'000;
  p.cache_write = 3'750'000;
  // 1,000,000 prompt tokens: 200k written, 300k read, 500k plain.
  EXPECT_EQ(modelgw::pricing::cost_micros(p, 1'000'000, 300'000, 0, 200'000),
            500'000 * 3 + 300'000 * 3 / 10 + 200'000 * 15 / 4);
  // Written and read never count past the prompt.
  EXPECT_EQ(modelgw::pricing::cost_micros(p, 100, 100, 0, 100), (100 * 3'750'000 + 999'999) / 1'000'000);
  EXPECT_EQ(modelgw::pricing::cost_micros(p, 100, 0, 0), (100 * 3'000'000 + 999'999) / 1'000'000);
}

}  // namespace
