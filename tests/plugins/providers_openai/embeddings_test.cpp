// Embeddings served natively (ABI 1.11, operation "embeddings"): the request
// built, whole answers relayed with each vector's text as the vendor wrote
// it, and the bodies that are refused.
#include "chat/body_members.h"
#include "plugin_harness.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace openai_test {
namespace {

constexpr const char* kEmbeddingsBody =
    R"({"model":"emb-alias","input":["Hi \"there\"","second"],"encoding_format":"float","dimensions":256,"user":"u-1"})";

// An embeddings call; with the request's member index (the host gives it on
// on_parse_response too) when `body` is not empty.
struct EmbeddingsCall {
  std::string body;
  CallContext call;
  explicit EmbeddingsCall(std::string b = {}) : body(std::move(b)) {
    call.operation = MGW_OPERATION_EMBEDDINGS;
    call.alias = "emb-alias";
    if (!body.empty()) {
      auto index = modelgw::chat::index_members(body);
      if (index) call.members = *index;
    }
  }
};

std::string two_inputs(std::string_view format = "float") {
  return R"({"model":"emb-alias","input":["a","b"],"encoding_format":")" + std::string(format) + R"("})";
}

// ---------------------------------------------------------------------------
// Requests

TEST(EmbeddingsRequest, GoesToTheEmbeddingsPathWithOnlyTheModelReplaced) {
  Provider p;
  EmbeddingsCall c(kEmbeddingsBody);
  auto b = build(p, c.call, kEmbeddingsBody);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.method, "POST");
  EXPECT_EQ(b->req.path, "/embeddings");
  EXPECT_EQ(b->req.header("Authorization"), "Bearer " MGW_PROVIDER_TEST_KEY);
  EXPECT_EQ(b->req.header("Accept"), "application/json");
  Json expected = Json::parse(kEmbeddingsBody);
  expected["model"] = "test-model";
  EXPECT_EQ(b->body().dump(), expected.dump());  // member order kept

  // Without the member index (an older host) the body is parsed: the same request.
  EmbeddingsCall unindexed;
  auto parsed = build(p, unindexed.call, kEmbeddingsBody);
  ASSERT_EQ(parsed->status, MGW_OK);
  EXPECT_EQ(parsed->body(), expected);
}

TEST(EmbeddingsRequest, TokenArraysGoAsTheyAre) {
  Provider p;
  const std::string body = R"({"model":"x","input":[[1,2,3],[4]],"encoding_format":"base64"})";
  EmbeddingsCall c(body);
  auto b = build(p, c.call, body);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->body(),
            Json::parse(R"({"model":"test-model","input":[[1,2,3],[4]],"encoding_format":"base64"})"));
}

// ---------------------------------------------------------------------------
// Whole answers

TEST(EmbeddingsResponse, RelaysEachVectorsTextInIndexOrderWithTheAlias) {
  Provider p;
  EmbeddingsCall c(two_inputs());
  Recorder out;
  ASSERT_EQ(p.parse(c.call, 200, fixture("embeddings_list.json"), out), MGW_OK);
  ASSERT_EQ(out.events, (std::vector<std::string>{"usage", "body"}));
  EXPECT_EQ(out.rec.usage->struct_size, sizeof(mgw_usage));
  EXPECT_EQ(out.rec.usage->prompt_tokens, 8);
  EXPECT_EQ(out.rec.usage->completion_tokens, 0);
  EXPECT_EQ(out.rec.usage->total_tokens, 8);
  // Byte for byte: the numbers are never turned into doubles and back.
  EXPECT_EQ(out.rec.body,
            R"({"object":"list","data":[)"
            R"({"object":"embedding","index":0,"embedding":[0.0023064255, -0.009327292, 1.5e-7, -0]},)"
            R"({"object":"embedding","index":1,"embedding":[-0.0120, 0.25E+2, 3]}],)"
            R"("model":"emb-alias","usage":{"prompt_tokens":8,"total_tokens":8}})");
}

TEST(EmbeddingsResponse, KeepsNumbersADoubleHoldsOrReadsAsZero) {
  Provider p;
  EmbeddingsCall c(R"({"model":"m","input":["a"],"encoding_format":"float"})");
  Recorder out;
  const std::string vector = "[1e-400,1.7976931348623157e308,-2.5E+10,0.000000e500]";
  ASSERT_EQ(p.parse(c.call, 200, R"({"object":"list","data":[{"index":0,"embedding":)" + vector + "}]}", out),
            MGW_OK);
  ASSERT_EQ(out.events, (std::vector<std::string>{"usage", "body"}));
  EXPECT_NE(out.rec.body.find(vector), std::string::npos) << out.rec.body;
}

TEST(EmbeddingsResponse, PutsItemsInIndexOrder) {
  Provider p;
  EmbeddingsCall c(two_inputs());
  Recorder out;
  const std::string body =
      R"({"object":"list","data":[{"object":"embedding","index":1,"embedding":[2]},)"
      R"({"object":"embedding","index":0,"embedding":[1]}],"usage":{"prompt_tokens":2,"total_tokens":2}})";
  ASSERT_EQ(p.parse(c.call, 200, body, out), MGW_OK);
  ASSERT_EQ(out.events, (std::vector<std::string>{"usage", "body"}));
  const Json list = Json::parse(out.rec.body);
  EXPECT_EQ(list["data"][0]["embedding"], Json::parse("[1]"));
  EXPECT_EQ(list["data"][1]["embedding"], Json::parse("[2]"));
  EXPECT_EQ(list["data"][1]["index"], 1);
}

TEST(EmbeddingsResponse, RelaysBase64AsTheVendorWroteIt) {
  Provider p;
  EmbeddingsCall c(R"({"model":"m","input":["a"],"encoding_format":"base64"})");
  Recorder out;
  const std::string body =
      R"({"object":"list","data":[{"object":"embedding","index":0,"embedding":"AACAPwAAAEA="}],"model":"x","usage":{"prompt_tokens":1,"total_tokens":1}})";
  ASSERT_EQ(p.parse(c.call, 200, body, out), MGW_OK);
  ASSERT_EQ(out.events, (std::vector<std::string>{"usage", "body"}));
  EXPECT_EQ(Json::parse(out.rec.body)["data"][0]["embedding"], "AACAPwAAAEA=");
}

TEST(EmbeddingsResponse, WithoutUsageReportsTheHostsCount) {
  Provider p;
  EmbeddingsCall c(two_inputs());
  c.call.prompt_tokens = 5;
  Recorder out;
  const std::string body =
      R"({"object":"list","data":[{"object":"embedding","index":0,"embedding":[1]},{"object":"embedding","index":1,"embedding":[2]}]})";
  ASSERT_EQ(p.parse(c.call, 200, body, out), MGW_OK);
  ASSERT_EQ(out.events, (std::vector<std::string>{"usage", "body"}));
  EXPECT_EQ(out.rec.usage->prompt_tokens, 5);
  EXPECT_EQ(Json::parse(out.rec.body)["usage"], Json::parse(R"({"prompt_tokens":5,"total_tokens":5})"));
}

TEST(EmbeddingsResponse, WithoutTheMemberIndexTakesItemsAsTheyCome) {
  Provider p;
  EmbeddingsCall c;  // an older host: no index at on_parse_response
  Recorder out;
  ASSERT_EQ(p.parse(c.call, 200, fixture("embeddings_list.json"), out), MGW_OK);
  ASSERT_EQ(out.events, (std::vector<std::string>{"usage", "body"}));
  EXPECT_EQ(Json::parse(out.rec.body)["data"].size(), 2u);
}

TEST(EmbeddingsResponse, RefusesBodiesThatAreNotOneVectorPerInput) {
  Provider p;
  const std::string one = R"({"object":"embedding","index":0,"embedding":[1]})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "not JSON"},
      {"[1]", "not an object"},
      {R"({"object":"list","data":[)" + one + "]}", "1 embeddings for 2 inputs"},
      {R"({"object":"list","data":[)" + one + "," + one + "]}", "each once"},
      {R"({"object":"list","data":[{"index":0,"embedding":[1]},{"index":7,"embedding":[1]}]})", "each once"},
      {R"({"object":"list","data":[{"index":0,"embedding":["1"]},{"index":1,"embedding":[1]}]})",
       "not an array of numbers"},
      {R"({"object":"list","data":[{"index":0,"embedding":"AAAA"},{"index":1,"embedding":[1]}]})",
       "not an array of numbers"},
      {R"({"object":"list","data":[1,2]})", "not an object"},
      {R"({"object":"list","data":{}})", "not an array"},
      {R"({"object":"list"})", "\"data\""},
      {R"({"data":[]})", "\"object\": \"list\""},
      {R"({"object":"list","data":[{"index":0,"embedding":[1,]},{"index":1,"embedding":[1]}]})", "not JSON"},
      {R"({"object":"list","data":[{"index":0,"embedding":[01]},{"index":1,"embedding":[1]}]})", "not JSON"},
      {R"({"object":"list","data":[{"index":-1,"embedding":[1]},{"index":1,"embedding":[1]}]})", "each once"},
      // Past a double's range: no reader could hold it.
      {R"({"object":"list","data":[{"index":0,"embedding":[1e400]},{"index":1,"embedding":[1]}]})",
       "not an array of numbers"},
  };
  for (const auto& [body, why] : cases) {
    EmbeddingsCall c(two_inputs());
    Recorder out;
    p.parse(c.call, 200, body, out);
    ASSERT_EQ(out.events, (std::vector<std::string>{"error"})) << body;
    EXPECT_EQ(out.rec.error->http_status, 502) << body;
    EXPECT_EQ(out.rec.error->code, "provider_failed") << body;
    EXPECT_NE(out.rec.error->message.find(why), std::string::npos) << body << ": " << out.rec.error->message;
  }
}

TEST(EmbeddingsResponse, Base64AskedButFloatsSentIsABadSuccess) {
  Provider p;
  EmbeddingsCall c(R"({"model":"m","input":["a"],"encoding_format":"base64"})");
  Recorder out;
  p.parse(c.call, 200, R"({"object":"list","data":[{"index":0,"embedding":[1]}]})", out);
  ASSERT_EQ(out.events, (std::vector<std::string>{"error"}));
  EXPECT_NE(out.rec.error->message.find("not a base64 string"), std::string::npos) << out.rec.error->message;
}

TEST(EmbeddingsResponse, AnErrorObjectIn2xxIsAFailureWithItsMessage) {
  Provider p;
  EmbeddingsCall c(two_inputs());
  Recorder out;
  p.parse(c.call, 200, R"({"error":{"message":"overloaded","type":"server_error"}})", out);
  ASSERT_EQ(out.events, (std::vector<std::string>{"error"}));
  EXPECT_EQ(out.rec.error->code, "provider_failed");
  EXPECT_NE(out.rec.error->message.find("overloaded"), std::string::npos);
}

TEST(EmbeddingsErrors, AnInputProblemNamesInput) {
  Provider p;
  EmbeddingsCall c(two_inputs());
  {
    Recorder out;
    p.parse(
        c.call, 400,
        R"({"error":{"message":"This model's maximum context length is 8192 tokens, however you requested 9000 tokens in your input.","type":"invalid_request_error","param":null,"code":"context_length_exceeded"}})",
        out);
    ASSERT_EQ(out.events, (std::vector<std::string>{"error"}));
    EXPECT_EQ(out.rec.error->http_status, 422);
    EXPECT_EQ(out.rec.error->code, "context_length_exceeded");
    EXPECT_EQ(out.rec.error->param, "input");
  }
  {
    Recorder out;
    p.parse(
        c.call, 400,
        R"({"error":{"message":"'$.input' is invalid. Please check the API reference.","type":"invalid_request_error","param":null,"code":null}})",
        out);
    ASSERT_EQ(out.events, (std::vector<std::string>{"error"}));
    EXPECT_EQ(out.rec.error->http_status, 400);
    EXPECT_EQ(out.rec.error->param, "input");
  }
  {
    Recorder out;
    p.parse(c.call, 401, R"({"error":{"message":"bad key"}})", out);
    ASSERT_EQ(out.events, (std::vector<std::string>{"error"}));
    EXPECT_EQ(out.rec.error->param, "");
  }
}

TEST(EmbeddingsResponse, AHundredLargeVectorsRelayInOnePass) {
  // The shape the gateway's benchmark sends: 100 vectors of 1,536 floats.
  // Not timed: it pins that a body of this size relays whole and exact.
  std::string body = R"({"object":"list","data":[)";
  std::string input = R"({"model":"m","input":[)";
  for (int i = 0; i < 100; ++i) {
    body += i == 0 ? "" : ",";
    input += i == 0 ? "\"x\"" : ",\"x\"";
    body += R"({"object":"embedding","index":)" + std::to_string(i) + R"(,"embedding":[)";
    for (int k = 0; k < 1536; ++k) {
      body += k == 0 ? "" : ",";
      body += "-0.01234567" + std::to_string(k % 10);
    }
    body += "]}";
  }
  body += R"(],"model":"m","usage":{"prompt_tokens":100,"total_tokens":100}})";
  input += "]}";
  Provider p;
  EmbeddingsCall c(input);
  Recorder out;
  ASSERT_EQ(p.parse(c.call, 200, body, out), MGW_OK);
  ASSERT_EQ(out.events, (std::vector<std::string>{"usage", "body"}));
  const Json got = Json::parse(out.rec.body);
  const Json sent = Json::parse(body);
  ASSERT_EQ(got["data"].size(), 100u);
  EXPECT_EQ(got["data"], sent["data"]);
  EXPECT_LT(out.rec.body.size(), body.size() + 200);
}

}  // namespace
}  // namespace openai_test
