// on_build_request: the HTTP request that goes to Gemini (path, headers, and
// the fields that are dropped). Messages and generation settings have their
// own test files.
#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace gemini_test {
namespace {

constexpr std::string_view kHello = R"({"model":"svc-flash","messages":[{"role":"user","content":"Hello"}]})";

int header_count(const RequestRecorder& r, std::string_view name) {
  int n = 0;
  for (const auto& [k, v] : r.headers) {
    std::string a = k, b(name);
    for (auto& c : a) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    for (auto& c : b) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    n += a == b ? 1 : 0;
  }
  return n;
}

TEST(BuildRequest, PostsToGenerateContentOfTheUpstreamModel) {
  Provider p;
  CallContext call;
  call.upstream_model = "gemini-2.5-flash";
  auto b = build(p, call, kHello);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.method, "POST");
  EXPECT_EQ(b->req.path, "/models/gemini-2.5-flash:generateContent");
  EXPECT_TRUE(b->error.events.empty());
}

TEST(BuildRequest, StreamsWithStreamGenerateContentAsSse) {
  Provider p;
  CallContext call = stream_call();
  call.upstream_model = "gemini-2.5-flash";
  auto b = build(p, call, kHello);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.path, "/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
  EXPECT_EQ(b->req.header("Accept"), "text/event-stream");
}

TEST(BuildRequest, PercentEncodesTheModelName) {
  // A catalog name with path or query characters must not change the method.
  Provider p;
  CallContext call;
  call.upstream_model = "tuned/my model:v1?x#y%é";
  auto b = build(p, call, kHello);
  EXPECT_EQ(b->req.path, "/models/tuned%2Fmy%20model%3Av1%3Fx%23y%25%C3%A9:generateContent");
}

TEST(BuildRequest, DropsGooglesModelsPrefix) {
  Provider p;
  CallContext call;
  call.upstream_model = "models/gemini-2.0-flash";
  auto b = build(p, call, kHello);
  EXPECT_EQ(b->req.path, "/models/gemini-2.0-flash:generateContent");
}

TEST(BuildRequest, SendsTheKeyInAHeaderNeverInTheUrl) {
  Provider p;
  auto b = build(p, CallContext{}, kHello);
  EXPECT_EQ(b->req.header("x-goog-api-key"), std::string(kKey));
  EXPECT_EQ(b->req.header("Content-Type"), "application/json");
  EXPECT_EQ(b->req.header("Accept"), "application/json");
  EXPECT_EQ(header_count(b->req, "Authorization"), 0);
  EXPECT_EQ(b->req.path.find("key="), std::string::npos);
  EXPECT_EQ(b->req.path.find("AIza"), std::string::npos);
  EXPECT_EQ(b->req.body.find("AIza"), std::string::npos);
}

TEST(BuildRequest, SendsNoKeyHeaderWithoutAKey) {
  for (const char* config : {R"({"api_key":""})", R"({})"}) {
    Provider p(config);
    auto b = build(p, CallContext{}, kHello);
    ASSERT_EQ(b->status, MGW_OK);
    EXPECT_EQ(header_count(b->req, "x-goog-api-key"), 0) << config;
    EXPECT_EQ(b->req.header("Content-Type"), "application/json");
  }
}

TEST(BuildRequest, SendsConfiguredExtraHeaders) {
  Provider p(
      R"({"api_key":"AIzaSyTestKey0123456789abcdefghijklmno","headers":{"X-Team":"search","x-goog-user-project":"proj-7"}})");
  auto b = build(p, CallContext{}, kHello);
  EXPECT_EQ(b->req.header("X-Team"), "search");
  EXPECT_EQ(b->req.header("x-goog-user-project"), "proj-7");
}

TEST(BuildRequest, ConfiguredHeadersReplaceBuiltInOnes) {
  // e.g. a gateway in front of Gemini that wants its own key or Accept.
  Provider p(R"({"api_key":"AIzaSyTestKey0123456789abcdefghijklmno",
                 "headers":{"X-Goog-Api-Key":"AIzaSyOtherKey","ACCEPT":"*/*"}})");
  auto b = build(p, stream_call(), kHello);
  EXPECT_EQ(header_count(b->req, "x-goog-api-key"), 1);
  EXPECT_EQ(b->req.header("x-goog-api-key"), "AIzaSyOtherKey");
  EXPECT_EQ(header_count(b->req, "Accept"), 1);
  EXPECT_EQ(b->req.header("Accept"), "*/*");
}

TEST(BuildRequest, TheBodyHoldsOnlyGeminiFields) {
  const Json body = gemini_body(R"({
    "model": "svc-flash", "request_id": "req_client", "stream": true,
    "stream_options": {"include_usage": true}, "user": "u-42", "logprobs": true, "top_logprobs": 3,
    "parallel_tool_calls": false, "metadata": {"a": "b"}, "store": true, "service_tier": "auto",
    "reasoning_effort": "low", "logit_bias": {"50256": -100},
    "messages": [{"role": "user", "content": "Hello"}]})");
  EXPECT_EQ(body, Json::parse(R"({"contents":[{"role":"user","parts":[{"text":"Hello"}]}]})"));
}

TEST(BuildRequest, PutsMembersInAStableOrder) {
  const Json body = gemini_body(R"({
    "temperature": 0.2, "tool_choice": "auto", "model": "m",
    "tools": [{"type": "function", "function": {"name": "f"}}],
    "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]})");
  std::vector<std::string> keys;
  for (const auto& item : body.items()) {
    keys.push_back(item.key());
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"contents", "systemInstruction", "tools", "toolConfig",
                                            "generationConfig"}));
}

TEST(BuildRequest, RefusesABodyThatIsNotAnObject) {
  Provider p;
  auto b = build(p, CallContext{}, "[1,2]");
  EXPECT_EQ(b->status, MGW_INVALID_ARGUMENT);
  EXPECT_EQ(b->refusal().http_status, 400);
  EXPECT_EQ(b->refusal().code, "invalid_parameter");
  EXPECT_TRUE(b->req.body.empty());
}

TEST(BuildRequest, RefusesMessagesThatAreNotAnArray) {
  const auto e = refused(R"({"model":"m","messages":{"role":"user"}})");
  EXPECT_EQ(e.param, "messages");
}

TEST(BuildRequest, ARefusedRequestEmitsNothing) {
  Provider p;
  auto b = build(p, CallContext{}, R"({"model":"m","messages":[{"role":"robot","content":"x"}]})");
  EXPECT_EQ(b->status, MGW_INVALID_ARGUMENT);
  EXPECT_TRUE(b->req.path.empty());
  EXPECT_TRUE(b->req.headers.empty());
  EXPECT_TRUE(b->req.body.empty());
}

}  // namespace
}  // namespace gemini_test
