// Embeddings (ABI 1.11, operation "embeddings") through batchEmbedContents:
// the request built, the answer relayed as OpenAI's list (vectors' text as
// Gemini wrote it, or float32 base64), and what is refused; and the
// native_operations config key.
#include "chat/body_members.h"
#include "plugin_harness.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

namespace gemini_test {
namespace {

// An embeddings call with the request's member index (the host gives it to
// on_parse_response too); none when `body` is empty.
struct EmbeddingsCall {
  std::string body;
  CallContext call;
  explicit EmbeddingsCall(std::string b = {}) : body(std::move(b)) {
    call.operation = MGW_OPERATION_EMBEDDINGS;
    call.alias = "emb-alias";
    call.upstream_model = "text-embedding-004";
    if (!body.empty()) {
      auto index = modelgw::chat::index_members(body);
      if (index) call.members = *index;
    }
  }
};

std::string inputs_body(std::string_view input, std::string_view extra = "") {
  return R"({"model":"emb-alias","input":)" + std::string(input) + R"(,"encoding_format":"float")" +
         std::string(extra) + "}";
}

std::vector<std::string> operations_of(std::string_view config) {
  Provider p(config);
  std::vector<std::string> out;
  if (hooks().struct_size < MGW_PROVIDER_HOOKS_SIZE_1_10 || hooks().on_provider_operations == nullptr) {
    ADD_FAILURE() << "no on_provider_operations hook";
    return out;
  }
  mgw_text_sink sink{&out, [](void* self, mgw_str text) {
                       static_cast<std::vector<std::string>*>(self)->emplace_back(mgw::view(text));
                     }};
  EXPECT_EQ(hooks().on_provider_operations(p.get(), &sink), MGW_OK);
  return out;
}

// ---------------------------------------------------------------------------
// Configuration

TEST(GeminiNativeOperations, DefaultsToEmbeddingsAndCountTokens) {
  using V = std::vector<std::string>;
  EXPECT_EQ(operations_of(R"({"api_key":"AIzaSyTestKey0123456789abcdefghijklmno"})"),
            (V{"embeddings", "count_tokens"}));
  EXPECT_EQ(operations_of(R"({"native_operations":null})"), (V{"embeddings", "count_tokens"}));
  EXPECT_EQ(operations_of(R"({"native_operations":[]})"), V{});
  EXPECT_EQ(operations_of(R"({"native_operations":["count_tokens","count_tokens"]})"), V{"count_tokens"});
}

TEST(GeminiNativeOperations, RefusesWrongTypesAndUnknownNames) {
  auto [status, text] = try_config(R"({"native_operations":"embeddings"})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_EQ(text, "native_operations: must be an array of operation names (embeddings, count_tokens)");
  std::tie(status, text) = try_config(R"({"native_operations":[true]})");
  EXPECT_EQ(text, "native_operations[0]: must be a string");
  std::tie(status, text) = try_config(R"({"native_operations":["embeddings","responses"]})");
  EXPECT_EQ(status, MGW_INVALID_ARGUMENT);
  EXPECT_EQ(text,
            "native_operations[1]: 'responses' is not an operation the gemini provider serves natively "
            "(embeddings, count_tokens)");
}

// ---------------------------------------------------------------------------
// Requests

TEST(GeminiEmbeddingsRequest, OneEmbedRequestPerInputToBatchEmbedContents) {
  Provider p;
  const std::string body = inputs_body(R"(["Hi \"there\"","second"])", R"(,"dimensions":256,"user":"u")");
  EmbeddingsCall c(body);
  auto b = build(p, c.call, body);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.method, "POST");
  EXPECT_EQ(b->req.path, "/models/text-embedding-004:batchEmbedContents");
  EXPECT_EQ(b->req.header("x-goog-api-key"), kKey);
  EXPECT_EQ(b->req.header("Accept"), "application/json");
  const Json expected = Json::parse(
      R"({"requests":[)"
      R"({"model":"models/text-embedding-004","content":{"parts":[{"text":"Hi \"there\""}]},"outputDimensionality":256},)"
      R"({"model":"models/text-embedding-004","content":{"parts":[{"text":"second"}]},"outputDimensionality":256}]})");
  EXPECT_EQ(b->body(), expected);

  // Without the member index (an older host) the body is parsed: the same request.
  EmbeddingsCall unindexed;
  auto parsed = build(p, unindexed.call, body);
  ASSERT_EQ(parsed->status, MGW_OK);
  EXPECT_EQ(parsed->body(), expected);
}

TEST(GeminiEmbeddingsRequest, AResourceNameModelIsNotDoubled) {
  Provider p;
  const std::string body = inputs_body(R"(["a"])");
  EmbeddingsCall c(body);
  c.call.upstream_model = "models/gemini-embedding-001";
  auto b = build(p, c.call, body);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.path, "/models/gemini-embedding-001:batchEmbedContents");
  EXPECT_EQ(b->body()["requests"][0]["model"], "models/gemini-embedding-001");
  EXPECT_FALSE(b->body()["requests"][0].contains("outputDimensionality"));
}

TEST(GeminiEmbeddingsRequest, RefusesTokenArraysNamingInput) {
  Provider p;
  for (const bool indexed : {true, false}) {
    const std::string body = inputs_body(R"(["text",[1,2,3]])");
    EmbeddingsCall c(indexed ? body : std::string());
    Recorder error;
    RequestRecorder req;
    EXPECT_EQ(p.build(c.call, body, req, error), MGW_INVALID_ARGUMENT);
    ASSERT_TRUE(error.rec.error.has_value());
    EXPECT_EQ(error.rec.error->http_status, 400);
    EXPECT_EQ(error.rec.error->code, "invalid_parameter");
    EXPECT_EQ(error.rec.error->param, "input");
    EXPECT_NE(error.rec.error->message.find("text only"), std::string::npos);
  }
}

TEST(GeminiEmbeddingsRequest, RefusesBadDimensionsAndEmptyInput) {
  Provider p;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {inputs_body(R"(["a"])", R"(,"dimensions":0)"), "dimensions"},
      {inputs_body(R"(["a"])", R"(,"dimensions":"256")"), "dimensions"},
      {inputs_body(R"([])"), "input"},
      {inputs_body(R"(7)"), "input"},
  };
  for (const auto& [body, param] : cases) {
    EmbeddingsCall c(body);
    Recorder error;
    RequestRecorder req;
    EXPECT_EQ(p.build(c.call, body, req, error), MGW_INVALID_ARGUMENT) << body;
    ASSERT_TRUE(error.rec.error.has_value()) << body;
    EXPECT_EQ(error.rec.error->param, param) << body;
  }
}

// ---------------------------------------------------------------------------
// Whole answers

TEST(GeminiEmbeddingsResponse, RelaysValuesTextAsOpenAisListWithTheHostsCount) {
  Provider p;
  EmbeddingsCall c(inputs_body(R"(["a","b"])"));
  c.call.prompt_tokens = 6;
  Recorder out;
  const std::string body =
      R"({"embeddings":[{"values":[0.013168523, -0.008711934,1e-05]},{"values":[-0.5,2]}]})";
  ASSERT_EQ(p.parse(c.call, 200, body, out), MGW_OK);
  ASSERT_EQ(out.events, (std::vector<std::string>{"usage", "body"}));
  EXPECT_EQ(out.rec.usage->prompt_tokens, 6);
  EXPECT_EQ(out.rec.usage->completion_tokens, 0);
  EXPECT_EQ(out.rec.usage->total_tokens, 6);
  EXPECT_EQ(out.rec.body, R"({"object":"list","data":[)"
                          R"({"object":"embedding","index":0,"embedding":[0.013168523, -0.008711934,1e-05]},)"
                          R"({"object":"embedding","index":1,"embedding":[-0.5,2]}],)"
                          R"("model":"emb-alias","usage":{"prompt_tokens":6,"total_tokens":6}})");
}

TEST(GeminiEmbeddingsResponse, Base64IsLittleEndianFloat32) {
  Provider p;
  EmbeddingsCall c(R"({"model":"m","input":["a","b"],"encoding_format":"base64"})");
  Recorder out;
  ASSERT_EQ(p.parse(c.call, 200,
                    R"({"embeddings":[{"values":[1.0,2]},{"values":[-0.0, 1e-50, 1e39, -3.5e38]}]})", out),
            MGW_OK);
  ASSERT_EQ(out.events, (std::vector<std::string>{"usage", "body"}));
  const Json list = Json::parse(out.rec.body);
  // 1.0f = 0x3F800000, 2.0f = 0x40000000, as bytes 00 00 80 3F 00 00 00 40.
  EXPECT_EQ(list["data"][0]["embedding"], "AACAPwAAAEA=");
  // -0.0f, 0 (below float's range), +inf and -inf (past it): 00000080 00000000 0000807F 000080FF.
  EXPECT_EQ(list["data"][1]["embedding"], "AAAAgAAAAAAAAIB/AACA/w==");
}

TEST(GeminiEmbeddingsResponse, RefusesAnswersThatAreNotOneVectorPerInput) {
  Provider p;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "not JSON"},
      {"[1]", "not an object"},
      {R"({"embeddings":[{"values":[1]}]})", "1 embeddings for 2 inputs"},
      {R"({"embeddings":[{"values":[1]},{"values":["x"]}]})", "not an array of numbers"},
      {R"({"embeddings":[{"values":[1]},{}]})", "not an array of numbers"},
      {R"({"embeddings":[{"values":[1]},3]})", "not an object"},
      {R"({"embeddings":{}})", "not an array"},
      {R"({"other":1})", "without \"embeddings\""},
      {R"({"embeddings":[{"values":[1.]},{"values":[1]}]})", "not JSON"},
      // Past a double's range: no reader could hold it (a double's underflow reads as 0 and is kept).
      {R"({"embeddings":[{"values":[1]},{"values":[1e400]}]})", "not an array of numbers"},
      {R"({"embeddings":[{"values":[1]},{"values":[-123456789e301]}]})", "not an array of numbers"},
  };
  for (const auto& [body, why] : cases) {
    EmbeddingsCall c(inputs_body(R"(["a","b"])"));
    Recorder out;
    p.parse(c.call, 200, body, out);
    ASSERT_EQ(out.events, (std::vector<std::string>{"error"})) << body;
    EXPECT_EQ(out.rec.error->http_status, 502) << body;
    EXPECT_EQ(out.rec.error->code, "provider_failed") << body;
    EXPECT_NE(out.rec.error->message.find(why), std::string::npos) << body << ": " << out.rec.error->message;
  }
}

TEST(GeminiEmbeddingsResponse, ErrorsMapAsForChatAPromptProblemNamingInput) {
  Provider p;
  EmbeddingsCall c(inputs_body(R"(["a"])"));
  {
    Recorder out;
    p.parse(
        c.call, 400,
        R"({"error":{"code":400,"message":"The input token count (3000) exceeds the maximum number of tokens allowed (2048).","status":"INVALID_ARGUMENT"}})",
        out);
    ASSERT_EQ(out.events, (std::vector<std::string>{"error"}));
    EXPECT_EQ(out.rec.error->code, "context_length_exceeded");
    EXPECT_EQ(out.rec.error->param, "input");
  }
  {
    Recorder out;
    p.parse(c.call, 429,
            R"({"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}})", out);
    ASSERT_EQ(out.events, (std::vector<std::string>{"error"}));
    EXPECT_EQ(out.rec.error->http_status, 429);
  }
  {
    Recorder out;
    p.parse(c.call, 200, R"({"error":{"code":500,"message":"internal","status":"INTERNAL"}})", out);
    ASSERT_EQ(out.events, (std::vector<std::string>{"error"}));
    EXPECT_EQ(out.rec.error->code, "provider_failed");
    EXPECT_NE(out.rec.error->message.find("internal"), std::string::npos);
  }
}

}  // namespace
}  // namespace gemini_test
