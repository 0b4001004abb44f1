// The prompt's exact size (ABI 1.11, operation "count_tokens"): a chat body
// translated as for generateContent and sent to countTokens; the answer's
// totalTokens relayed as {"input_tokens": N}.
#include "plugin_harness.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gemini_test {
namespace {

CallContext count_call() {
  CallContext c;
  c.operation = MGW_OPERATION_COUNT_TOKENS;
  c.upstream_model = "gemini-2.0-flash";
  return c;
}

TEST(GeminiCountTokensRequest, TranslatesThePromptIntoAGenerateContentRequest) {
  Provider p;
  const std::string body =
      R"({"model":"alias","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}],)"
      R"("tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],)"
      R"("max_tokens":100,"temperature":0.5,"stream":false})";
  auto b = build(p, count_call(), body);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.method, "POST");
  EXPECT_EQ(b->req.path, "/models/gemini-2.0-flash:countTokens");
  EXPECT_EQ(b->req.header("x-goog-api-key"), kKey);
  const Json sent = b->body();
  ASSERT_TRUE(sent.contains("generateContentRequest")) << sent.dump();
  const Json& inner = sent["generateContentRequest"];
  EXPECT_EQ(inner["model"], "models/gemini-2.0-flash");
  EXPECT_EQ(inner["contents"], Json::parse(R"([{"role":"user","parts":[{"text":"Hi"}]}])"));
  EXPECT_EQ(inner["systemInstruction"], Json::parse(R"({"parts":[{"text":"Be brief."}]})"));
  EXPECT_EQ(inner["tools"][0]["functionDeclarations"][0]["name"], "f");
  // Generation settings do not change the count, and countTokens need not take them.
  EXPECT_FALSE(inner.contains("generationConfig"));
  EXPECT_EQ(sent.size(), 1u);
}

TEST(GeminiCountTokensRequest, RefusesWhatChatWouldRefuse) {
  Provider p;
  Recorder error;
  RequestRecorder req;
  const std::string body = R"({"model":"a","messages":[{"role":"wizard","content":"Hi"}]})";
  EXPECT_EQ(p.build(count_call(), body, req, error), MGW_INVALID_ARGUMENT);
  ASSERT_TRUE(error.rec.error.has_value());
  EXPECT_EQ(error.rec.error->http_status, 400);
  EXPECT_EQ(error.rec.error->param.rfind("messages", 0), 0u) << error.rec.error->param;
}

TEST(GeminiCountTokensResponse, RelaysTotalTokensAsInputTokensWithoutUsage) {
  Provider p;
  Recorder out;
  ASSERT_EQ(p.parse(count_call(), 200,
                    R"({"totalTokens":31,"promptTokensDetails":[{"modality":"TEXT","tokenCount":31}]})", out),
            MGW_OK);
  ASSERT_EQ(out.events, (std::vector<std::string>{"body"}));
  EXPECT_EQ(out.rec.body, R"({"input_tokens":31})");
}

TEST(GeminiCountTokensResponse, AnAbsentTotalIsZeroAsProto3WritesIt) {
  Provider p;
  Recorder out;
  ASSERT_EQ(p.parse(count_call(), 200, "{}", out), MGW_OK);
  EXPECT_EQ(out.rec.body, R"({"input_tokens":0})");
}

TEST(GeminiCountTokensResponse, BadAnswersAndErrors) {
  Provider p;
  for (const char* body : {"not json", "[1]", R"({"totalTokens":"many"})"}) {
    Recorder out;
    p.parse(count_call(), 200, body, out);
    ASSERT_EQ(out.events, (std::vector<std::string>{"error"})) << body;
    EXPECT_EQ(out.rec.error->code, "provider_failed") << body;
  }
  Recorder out;
  p.parse(count_call(), 404,
          R"({"error":{"code":404,"message":"models/x is not found","status":"NOT_FOUND"}})", out);
  ASSERT_EQ(out.events, (std::vector<std::string>{"error"}));
  // As the chat path maps it: the model is the gateway's configuration, not the client's.
  EXPECT_EQ(out.rec.error->http_status, 502);
  EXPECT_NE(out.rec.error->message.find("gemini-2.0-flash"), std::string::npos) << out.rec.error->message;
}

}  // namespace
}  // namespace gemini_test
