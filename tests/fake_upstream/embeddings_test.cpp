// The embedding routes of fake_upstream: OpenAI's POST /v1/embeddings and
// Gemini's embedContent, batchEmbedContents and countTokens. Deterministic
// vectors (same input, same vector, whichever vendor), sizes, base64, token
// counts, the vendors' limits and the faults. Runs the built binary over raw
// sockets (test_support.h); every wait is bounded.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_support.h"

namespace embeddings_test {
namespace {

using json = nlohmann::json;
using fake_upstream::test::call;
using fake_upstream::test::FakeUpstream;
using fake_upstream::test::Response;

const std::string kOpenAiKey = "sk-embeddings-test-key";
const std::vector<std::string> kOpenAiHeaders = {"Authorization: Bearer " + kOpenAiKey};

int chatPromptTokens(const std::string& text) {
  return 4 + static_cast<int>((text.size() + 3) / 4);
}

// base64 → bytes, for checking the float32 form against the floats.
std::string decodeBase64(const std::string& text) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (const char c : text) {
    const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char* at = std::strchr(alphabet, c);
    if (c == '=' || at == nullptr) break;
    acc = (acc << 6) | static_cast<uint32_t>(at - alphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

class EmbeddingsRoutesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      // One key serves both vendors' checks: Bearer for OpenAI, x-goog-api-key for Gemini.
      server_ = std::make_unique<FakeUpstream>(FAKE_UPSTREAM_BIN,
                                               std::vector<std::string>{"--api-key", kOpenAiKey});
    } catch (const std::exception& e) {
      startError_ = e.what();
    }
  }
  static void TearDownTestSuite() { server_.reset(); }
  void SetUp() override { ASSERT_TRUE(server_) << startError_; }
  static int port() { return server_->port(); }

  static Response openai(const json& body) {
    return call(port(), "POST", "/v1/embeddings", body.dump(), kOpenAiHeaders);
  }
  static Response gemini(const std::string& model, const std::string& method, const json& body) {
    return call(port(), "POST", "/v1beta/models/" + model + ":" + method, body.dump(),
                {"x-goog-api-key: " + kOpenAiKey});
  }

  static std::unique_ptr<FakeUpstream> server_;
  static std::string startError_;
};

std::unique_ptr<FakeUpstream> EmbeddingsRoutesTest::server_;
std::string EmbeddingsRoutesTest::startError_;

TEST_F(EmbeddingsRoutesTest, OpenAiListOneDeterministicVectorPerInput) {
  const json body = {{"model", "text-embedding-3-small"},
                     {"input", {"hello world", "second", "hello world"}}};
  const auto r = openai(body);
  ASSERT_EQ(r.status, 200) << r.body;
  const auto j = json::parse(r.body);
  EXPECT_EQ(j["object"], "list");
  EXPECT_EQ(j["model"], "text-embedding-3-small");
  ASSERT_EQ(j["data"].size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(j["data"][i]["object"], "embedding");
    EXPECT_EQ(j["data"][i]["index"], i);
    EXPECT_EQ(j["data"][i]["embedding"].size(), 1536u);
  }
  EXPECT_EQ(j["data"][0]["embedding"], j["data"][2]["embedding"]);  // same input, same vector
  EXPECT_NE(j["data"][0]["embedding"], j["data"][1]["embedding"]);
  for (const auto& v : j["data"][1]["embedding"]) {
    ASSERT_TRUE(v.is_number_float());
    EXPECT_LT(std::abs(v.get<double>()), 1.0);
  }
  const int p = chatPromptTokens("hello world") * 2 + chatPromptTokens("second");
  EXPECT_EQ(j["usage"], json({{"prompt_tokens", p}, {"total_tokens", p}}));
  // Again: the same answer.
  EXPECT_EQ(json::parse(openai(body).body)["data"], j["data"]);
}

TEST_F(EmbeddingsRoutesTest, OpenAiDimensionsBase64AndTokenArrays) {
  auto r = openai({{"model", "m"}, {"input", "x"}, {"dimensions", 8}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json floats = json::parse(r.body)["data"][0]["embedding"];
  ASSERT_EQ(floats.size(), 8u);

  r = openai({{"model", "m"}, {"input", "x"}, {"dimensions", 8}, {"encoding_format", "base64"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string bytes = decodeBase64(json::parse(r.body)["data"][0]["embedding"].get<std::string>());
  ASSERT_EQ(bytes.size(), 32u);
  for (size_t k = 0; k < 8; ++k) {
    uint32_t bitsLe = 0;
    for (int b = 3; b >= 0; --b) bitsLe = (bitsLe << 8) | static_cast<unsigned char>(bytes[k * 4 + b]);
    float f = 0;
    std::memcpy(&f, &bitsLe, sizeof f);
    EXPECT_EQ(f, static_cast<float>(floats[k].get<double>())) << k;
  }

  r = openai({{"model", "m"}, {"input", {{1, 2, 3}, {4}}}, {"dimensions", 4}});
  ASSERT_EQ(r.status, 200) << r.body;
  const auto j = json::parse(r.body);
  EXPECT_EQ(j["data"].size(), 2u);
  EXPECT_EQ(j["usage"]["prompt_tokens"], 4);  // a token array counts its ids
}

TEST_F(EmbeddingsRoutesTest, OpenAiRefusesAsOpenAiDoes) {
  const std::vector<json> bad = {
      {{"model", "m"}},
      {{"model", "m"}, {"input", ""}},
      {{"model", "m"}, {"input", json::array()}},
      {{"model", "m"}, {"input", {1.5}}},
      {{"model", "m"}, {"input", "x"}, {"encoding_format", "hex"}},
      {{"model", "m"}, {"input", "x"}, {"dimensions", 0}},
  };
  for (const auto& body : bad) {
    const auto r = openai(body);
    EXPECT_EQ(r.status, 400) << body.dump();
    EXPECT_EQ(json::parse(r.body)["error"]["type"], "invalid_request_error") << body.dump();
  }
  json many = {{"model", "m"}, {"input", std::vector<std::string>(2049, "a")}, {"dimensions", 1}};
  auto r = openai(many);
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("max number of inputs is 2048"), std::string::npos) << r.body;
  many["input"] = std::vector<std::string>(2048, "a");
  EXPECT_EQ(openai(many).status, 200);
  EXPECT_EQ(call(port(), "POST", "/v1/embeddings", json({{"model", "m"}, {"input", "x"}}).dump(), {}).status,
            401);
}

TEST_F(EmbeddingsRoutesTest, OpenAiFaults) {
  EXPECT_EQ(openai({{"model", "m+status=429"}, {"input", "x"}}).status, 429);
  EXPECT_EQ(openai({{"model", "m+context"}, {"input", "x"}}).status, 400);
  auto r = openai({{"model", "m+error200"}, {"input", "x"}});
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(json::parse(r.body).contains("error"));
  r = openai({{"model", "m+garbage"}, {"input", "x"}});
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(json::parse(r.body, nullptr, false).is_discarded());
  r = openai({{"model", "m+no_usage"}, {"input", "x"}, {"dimensions", 2}});
  EXPECT_EQ(r.status, 200);
  EXPECT_FALSE(json::parse(r.body).contains("usage"));
  EXPECT_EQ(openai({{"model", "m+bogus"}, {"input", "x"}}).status, 400);
}

TEST_F(EmbeddingsRoutesTest, GeminiBatchGivesTheSameVectorsAsOpenAiAtItsSize) {
  const json req = {{"model", "models/text-embedding-004"},
                    {"content", {{"parts", {{{"text", "hello world"}}}}}},
                    {"outputDimensionality", 16}};
  auto r = gemini("text-embedding-004", "batchEmbedContents", {{"requests", {req, req}}});
  ASSERT_EQ(r.status, 200) << r.body;
  const auto j = json::parse(r.body);
  ASSERT_EQ(j["embeddings"].size(), 2u);
  EXPECT_EQ(j["embeddings"][0]["values"].size(), 16u);
  EXPECT_FALSE(j.contains("usageMetadata"));  // Gemini reports no tokens for embeddings
  const auto o = json::parse(openai({{"model", "m"}, {"input", "hello world"}, {"dimensions", 16}}).body);
  EXPECT_EQ(j["embeddings"][0]["values"], o["data"][0]["embedding"]);

  r = gemini("text-embedding-004", "embedContent",
             {{"content", {{"parts", {{{"text", "hello world"}}}}}}, {"outputDimensionality", 16}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["embedding"]["values"], o["data"][0]["embedding"]);
  r = gemini("text-embedding-004", "embedContent", {{"content", {{"parts", {{{"text", "x"}}}}}}});
  EXPECT_EQ(json::parse(r.body)["embedding"]["values"].size(), 768u);
}

TEST_F(EmbeddingsRoutesTest, GeminiRefusesAsGeminiDoes) {
  const json one = {
      {"model", "models/e"}, {"content", {{"parts", {{{"text", "x"}}}}}}, {"outputDimensionality", 1}};
  auto r = gemini("e", "batchEmbedContents", {{"requests", std::vector<json>(101, one)}});
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("at most 100 requests"), std::string::npos) << r.body;
  EXPECT_EQ(gemini("e", "batchEmbedContents", {{"requests", std::vector<json>(100, one)}}).status, 200);
  json other = one;
  other["model"] = "models/other";
  EXPECT_EQ(gemini("e", "batchEmbedContents", {{"requests", {other}}}).status, 400);
  EXPECT_EQ(gemini("e", "batchEmbedContents", {{"requests", json::array()}}).status, 400);
  EXPECT_EQ(gemini("e", "embedContent", {{"content", {{"parts", json::array()}}}}).status, 400);
  EXPECT_EQ(call(port(), "POST", "/v1beta/models/e:embedContent", one.dump(), {}).status, 400);  // no key
}

TEST_F(EmbeddingsRoutesTest, GeminiFaults) {
  const json body = {{"content", {{"parts", {{{"text", "x"}}}}}}};
  EXPECT_EQ(gemini("e+status=503", "embedContent", body).status, 503);
  EXPECT_EQ(gemini("e+quota", "embedContent", body).status, 429);
  const auto r = gemini("e+error200", "embedContent", body);
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(json::parse(r.body).contains("error"));
}

TEST_F(EmbeddingsRoutesTest, GeminiCountTokensMatchesGenerateContentsPromptCount) {
  const json contents = {{"systemInstruction", {{"parts", {{{"text", "You are a test."}}}}}},
                         {"contents", {{{"role", "user"}, {"parts", {{{"text", "Hello there"}}}}}}}};
  const auto generated = gemini("gemini-2.0-flash", "generateContent", contents);
  ASSERT_EQ(generated.status, 200) << generated.body;
  const auto expected = json::parse(generated.body)["usageMetadata"]["promptTokenCount"];

  json wrapped = contents;
  wrapped["model"] = "models/gemini-2.0-flash";
  auto r = gemini("gemini-2.0-flash", "countTokens", {{"generateContentRequest", wrapped}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["totalTokens"], expected);

  // {"contents": ...} alone: the same count without the system instruction.
  r = gemini("gemini-2.0-flash", "countTokens", {{"contents", contents["contents"]}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["totalTokens"], chatPromptTokens("Hello there"));

  wrapped.erase("model");
  EXPECT_EQ(gemini("gemini-2.0-flash", "countTokens", {{"generateContentRequest", wrapped}}).status, 400);
  EXPECT_EQ(gemini("gemini-2.0-flash", "countTokens", json::object()).status, 400);
  EXPECT_EQ(gemini("gemini-2.0-flash+status=429", "countTokens", {{"contents", contents["contents"]}}).status,
            429);
}

}  // namespace
}  // namespace embeddings_test
