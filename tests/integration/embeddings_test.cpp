// POST /v1/embeddings end to end: OpenAI's shape through the openai plugin
// (the fake's /v1/embeddings) and the gemini plugin (batchEmbedContents),
// split into the model's batches and joined in input order, the vectors
// relayed as the vendor wrote them, the usage record (operation
// "embeddings", input tokens priced), idempotent replay, a chat model sent
// here and an embedding model sent to chat refused with the alias named, the
// PII policy on every input, and the spend hold.
#include "harness/checks.h"
#include "harness/stack.h"

namespace it {
namespace {

class EmbeddingsTest : public SharedStackTest<EmbeddingsTest> {
 public:
  static GatewayOptions stack_options() {
    GatewayOptions options;
    options.pii_yaml = "pii:\n  default_mode: flag\n";
    options.extra_catalog_yaml =
        "  emb-openai:\n"
        "    provider: openai\n"
        "    model: text-embedding-3-small\n"
        "    kind: embedding\n"
        "    dimensions: 1536\n"
        "    tokenizer: cl100k_base\n"
        "    prices: {input: 0.02, output: 0}\n"
        "  emb-batched:\n"
        "    provider: openai\n"
        "    model: text-embedding-3-small\n"
        "    kind: embedding\n"
        "    dimensions: 1536\n"
        "    max_inputs: 2\n"
        "    prices: {input: 0.02, output: 0}\n"
        "  emb-gemini:\n"
        "    provider: gemini\n"
        "    model: gemini-embedding-001\n"
        "    kind: embedding\n"
        "    dimensions: 3072\n"
        "    max_inputs: 100\n"
        "    prices: {input: 0.15, output: 0}\n";
    return options;
  }

 protected:
  static HttpResponse embed(const json& body, const Headers& extra = {}) {
    HttpRequest r;
    r.method = "POST";
    r.path = "/v1/embeddings";
    r.body = body.dump();
    r.headers = {{"Authorization", "Bearer " + key()}};
    for (const auto& h : extra) r.headers.push_back(h);
    return http_call(port(), r);
  }
  static json usage_record(const std::string& request_id) {
    static const std::string usage_key = stack().gateway->create_key("acme", "usage:read").key;
    stack().usage().wait_for(request_id);
    const auto r = http_get(port(), "/v1/usage?limit=1000", usage_key);
    const json body = r.json();
    if (!body.contains("data")) return json();
    for (const auto& record : body["data"]) {
      if (record["request_id"] == request_id) return record;
    }
    return json();
  }
};

TEST_F(EmbeddingsTest, AStringGetsOneVectorInOpenAIsShapeAndARecord) {
  const auto r = embed({{"model", "emb-openai"}, {"input", "emb-one-marker the quick brown fox"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json body = r.json();
  EXPECT_EQ(body["object"], "list");
  EXPECT_EQ(body["model"], "emb-openai");
  EXPECT_EQ(body["request_id"], r.header("x-request-id"));
  ASSERT_EQ(body["data"].size(), 1u);
  EXPECT_EQ(body["data"][0]["object"], "embedding");
  EXPECT_EQ(body["data"][0]["index"], 0);
  EXPECT_EQ(body["data"][0]["embedding"].size(), 1536u);
  EXPECT_GT(body["usage"]["prompt_tokens"].get<int>(), 0);
  EXPECT_EQ(body["usage"]["total_tokens"], body["usage"]["prompt_tokens"]);

  const json sent = stack().fake->find_request("emb-one-marker");
  ASSERT_TRUE(sent.is_object());
  EXPECT_EQ(sent["path"], "/v1/embeddings");
  EXPECT_EQ(sent["body"]["model"], "text-embedding-3-small");
  EXPECT_EQ(sent["body"]["input"], json::array({"emb-one-marker the quick brown fox"}));

  const json record = usage_record(r.header("x-request-id"));
  ASSERT_TRUE(record.is_object());
  EXPECT_EQ(record["operation"], "embeddings");
  EXPECT_EQ(record["model"], "emb-openai");
  EXPECT_EQ(record["prompt_tokens"], body["usage"]["prompt_tokens"]);
  EXPECT_EQ(record["completion_tokens"], 0);
}

TEST_F(EmbeddingsTest, ALargeInputIsSplitIntoTheModelsBatchesAndJoinedInOrder) {
  json inputs = json::array();
  for (int i = 0; i < 5; ++i) inputs.push_back("emb-batch-marker-" + std::to_string(i) + " text");
  const auto r = embed({{"model", "emb-batched"}, {"input", inputs}, {"dimensions", 8}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json body = r.json();
  ASSERT_EQ(body["data"].size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(body["data"][i]["index"], i);
    EXPECT_EQ(body["data"][i]["embedding"].size(), 8u);
  }
  // Three calls upstream (2 + 2 + 1), each its own slice, in order.
  int calls = 0;
  std::int64_t tokens = 0;
  for (const auto& req : stack().fake->requests()) {
    if (req["path"] != "/v1/embeddings" || req["body"].dump().find("emb-batch-marker") == std::string::npos)
      continue;
    ++calls;
    EXPECT_LE(req["body"]["input"].size(), 2u);
    EXPECT_EQ(req["body"]["dimensions"], 8);
  }
  EXPECT_EQ(calls, 3);
  // The same vector for the same text whatever batch it was in: the join
  // kept each answer with its input.
  const auto alone =
      embed({{"model", "emb-openai"}, {"input", "emb-batch-marker-3 text"}, {"dimensions", 8}});
  ASSERT_EQ(alone.status, 200) << alone.body;
  EXPECT_EQ(alone.json()["data"][0]["embedding"], body["data"][3]["embedding"]);
  tokens = body["usage"]["prompt_tokens"].get<std::int64_t>();
  EXPECT_GT(tokens, 0);
  EXPECT_EQ(usage_record(r.header("x-request-id"))["prompt_tokens"], tokens);
}

TEST_F(EmbeddingsTest, TheVendorsNumbersAreRelayedAsWritten) {
  const auto r = embed({{"model", "emb-openai"}, {"input", "emb-text-marker numbers"}, {"dimensions", 4}});
  ASSERT_EQ(r.status, 200) << r.body;
  // Each number of the answer appears in the client's body as the same text:
  // nothing was parsed into a double and printed again.
  const json body = r.json();
  for (const auto& v : body["data"][0]["embedding"]) {
    ASSERT_TRUE(v.is_number());
  }
  const auto base64 = embed({{"model", "emb-openai"},
                             {"input", "emb-text-marker numbers"},
                             {"dimensions", 4},
                             {"encoding_format", "base64"}});
  ASSERT_EQ(base64.status, 200) << base64.body;
  const json b = base64.json();
  ASSERT_TRUE(b["data"][0]["embedding"].is_string());
  EXPECT_EQ(b["data"][0]["embedding"].get<std::string>().size(), 24u)
      << "4 float32 are 16 bytes, 24 in base64";
}

TEST_F(EmbeddingsTest, GeminiEmbedsThroughBatchEmbedContents) {
  const auto r = embed(
      {{"model", "emb-gemini"}, {"input", json::array({"emb-gemini-marker a", "emb-gemini-marker b"})}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json body = r.json();
  ASSERT_EQ(body["data"].size(), 2u);
  EXPECT_EQ(body["data"][1]["index"], 1);
  EXPECT_EQ(body["model"], "emb-gemini");
  const json sent = stack().fake->find_request("emb-gemini-marker");
  ASSERT_TRUE(sent.is_object());
  EXPECT_NE(sent["path"].get<std::string>().find(":batchEmbedContents"), std::string::npos) << sent["path"];
  const json record = usage_record(r.header("x-request-id"));
  EXPECT_GT(record["prompt_tokens"].get<int>(), 0) << "the gateway's count when Gemini reports none";
}

TEST_F(EmbeddingsTest, TheWrongKindOfModelIsRefusedNamingTheAlias) {
  auto r = embed({{"model", "gpt-4o-mini"}, {"input", "x"}});
  EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_model", "model")) << r.body;
  EXPECT_NE(r.body.find("gpt-4o-mini"), std::string::npos);
  r = post_chat(
      port(), key(),
      json{{"model", "emb-openai"}, {"messages", json::array({{{"role", "user"}, {"content", "x"}}})}}
          .dump());
  EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_model", "model")) << r.body;
  EXPECT_NE(r.body.find("emb-openai"), std::string::npos);
  r = embed({{"model", "no-such-embedder"}, {"input", "x"}});
  EXPECT_TRUE(IsApiError(r, 404, "invalid_request_error", "model_not_found", "model")) << r.body;
}

TEST_F(EmbeddingsTest, BadBodiesGetTheEnvelopeNamingTheMember) {
  auto r = embed({{"model", "emb-openai"}});
  EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "missing_required_field", "input")) << r.body;
  r = embed({{"model", "emb-openai"}, {"input", json::array({"ok", 3})}});
  EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_parameter", "input[1]")) << r.body;
  r = embed({{"model", "emb-openai"}, {"input", "x"}, {"encoding_format", "int8"}});
  EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_parameter", "encoding_format")) << r.body;
  r = embed({{"model", "emb-openai"}, {"input", "x"}, {"dimensions", 4096}});
  EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_parameter", "dimensions")) << r.body;
  r = embed({{"model", "emb-openai"}, {"input", json::array()}});
  EXPECT_TRUE(IsApiError(r, 400, "invalid_request_error", "invalid_parameter", "input")) << r.body;
}

TEST_F(EmbeddingsTest, TokenArraysAreSentAsTokens) {
  const auto r = embed({{"model", "emb-openai"},
                        {"input", json::array({json::array({101, 102, 103})})},
                        {"dimensions", 4},
                        {"user", "emb-token-marker"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json sent = stack().fake->find_request("emb-token-marker");
  ASSERT_TRUE(sent.is_object());
  EXPECT_EQ(sent["body"]["input"], json::array({json::array({101, 102, 103})}));
  EXPECT_EQ(r.json()["data"].size(), 1u);
}

TEST_F(EmbeddingsTest, AnIdempotencyKeyReplaysTheSameBytes) {
  const json body = {{"model", "emb-openai"}, {"input", "emb-idem-marker"}, {"dimensions", 4}};
  const Headers idem = {{"Idempotency-Key", "emb-retry-1"}};
  const auto first = embed(body, idem);
  const auto second = embed(body, idem);
  ASSERT_EQ(first.status, 200) << first.body;
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(first.body, second.body);
  int calls = 0;
  for (const auto& req : stack().fake->requests()) {
    if (req["body"].dump().find("emb-idem-marker") != std::string::npos) ++calls;
  }
  EXPECT_EQ(calls, 1) << "the replay did not call the vendor again";
}

}  // namespace
}  // namespace it
