// on_build_request: the HTTP request that goes to the vendor.
#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace openai_test {
namespace {

constexpr std::string_view kKey = "sk-test-Abc123Def456Ghi789";

const char* const kClientBody = R"({
  "model": "svc-standard",
  "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris?"}],
  "temperature": 0.7,
  "max_tokens": 256,
  "seed": 12345678901234,
  "tools": [{"type": "function", "function": {"name": "get_weather",
             "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
  "response_format": {"type": "json_object"},
  "user": "u-42"
})";

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

TEST(BuildRequest, PostsToChatCompletions) {
  Provider p;
  auto b = build(p, CallContext{}, kClientBody);
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.method, "POST");
  EXPECT_EQ(b->req.path, "/chat/completions");
  EXPECT_TRUE(b->error.events.empty());
}

TEST(BuildRequest, ReplacesModelAndKeepsEveryOtherField) {
  Provider p;
  auto b = build(p, CallContext{}, kClientBody);
  ASSERT_EQ(b->status, MGW_OK);
  Json expected = Json::parse(kClientBody);
  expected["model"] = "test-model";  // CallContext's upstream_model
  EXPECT_EQ(Json::parse(b->req.body), expected);
}

TEST(BuildRequest, KeepsTheClientsMemberOrderAndNumbers) {
  Provider p;
  auto b = build(p, CallContext{},
                 R"({"messages":[],"temperature":0.7,"model":"svc-flash","seed":12345678901234})");
  EXPECT_EQ(b->req.body, R"({"messages":[],"temperature":0.7,"model":"test-model","seed":12345678901234})");
}

TEST(BuildRequest, DropsTheGatewaysRequestId) {
  Provider p;
  auto b = build(p, CallContext{},
                 R"({"model":"a","request_id":"req_client","messages":[],"metadata":{"request_id":"keep"}})");
  const Json body = Json::parse(b->req.body);
  EXPECT_FALSE(body.contains("request_id"));
  EXPECT_EQ(body["metadata"]["request_id"], "keep");  // only the top-level field is the gateway's
}

TEST(BuildRequest, SendsAuthAndJsonHeaders) {
  Provider p;
  auto b = build(p, CallContext{}, kClientBody);
  EXPECT_EQ(b->req.header("Authorization"), "Bearer " + std::string(kKey));
  EXPECT_EQ(b->req.header("Content-Type"), "application/json");
  EXPECT_EQ(b->req.header("Accept"), "application/json");
  EXPECT_EQ(b->req.header("OpenAI-Organization"), std::nullopt);
  EXPECT_EQ(b->req.header("OpenAI-Project"), std::nullopt);
}

TEST(BuildRequest, SendsOrganizationProjectAndExtraHeaders) {
  Provider p(R"({"api_key":"sk-1234567890","organization":"org-abc","project":"proj_def",
                 "headers":{"X-Team":"search","HTTP-Referer":"https://example.com"}})");
  auto b = build(p, CallContext{}, kClientBody);
  EXPECT_EQ(b->req.header("OpenAI-Organization"), "org-abc");
  EXPECT_EQ(b->req.header("OpenAI-Project"), "proj_def");
  EXPECT_EQ(b->req.header("X-Team"), "search");
  EXPECT_EQ(b->req.header("HTTP-Referer"), "https://example.com");
  EXPECT_EQ(b->req.header("Authorization"), "Bearer sk-1234567890");
}

TEST(BuildRequest, SendsNoAuthorizationWithoutAKey) {
  for (const char* config : {R"({"api_key":""})", R"({})"}) {
    Provider p(config);
    auto b = build(p, CallContext{}, kClientBody);
    ASSERT_EQ(b->status, MGW_OK);
    EXPECT_EQ(header_count(b->req, "Authorization"), 0) << config;
    EXPECT_EQ(b->req.header("Content-Type"), "application/json");
  }
}

TEST(BuildRequest, ConfiguredHeadersReplaceBuiltInOnes) {
  // e.g. a vendor that wants another scheme; sending two would be ambiguous.
  Provider p(
      R"({"api_key":"sk-1234567890","headers":{"authorization":"Basic dXNlcjpwdw==","ACCEPT":"*/*"}})");
  auto b = build(p, CallContext{}, kClientBody);
  EXPECT_EQ(header_count(b->req, "Authorization"), 1);
  EXPECT_EQ(b->req.header("Authorization"), "Basic dXNlcjpwdw==");
  EXPECT_EQ(header_count(b->req, "Accept"), 1);
  EXPECT_EQ(b->req.header("Accept"), "*/*");
}

TEST(BuildRequest, StreamForcesStreamAndAsksForUsage) {
  Provider p;
  auto b = build(p, stream_call(), R"({"model":"a","messages":[]})");
  ASSERT_EQ(b->status, MGW_OK);
  const Json body = Json::parse(b->req.body);
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"], Json::parse(R"({"include_usage":true})"));
  EXPECT_EQ(b->req.header("Accept"), "text/event-stream");
}

TEST(BuildRequest, StreamMergesUsageIntoTheClientsStreamOptions) {
  Provider p;
  auto b = build(
      p, stream_call(),
      R"({"model":"a","messages":[],"stream":false,"stream_options":{"include_usage":false,"include_obfuscation":false}})");
  const Json body = Json::parse(b->req.body);
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"], Json::parse(R"({"include_usage":true,"include_obfuscation":false})"));
}

TEST(BuildRequest, StreamReplacesNullStreamOptions) {
  Provider p;
  auto b = build(p, stream_call(), R"({"model":"a","messages":[],"stream_options":null})");
  EXPECT_EQ(Json::parse(b->req.body)["stream_options"], Json::parse(R"({"include_usage":true})"));
}

TEST(BuildRequest, RefusesStreamOptionsThatAreNotAnObject) {
  Provider p;
  auto b = build(p, stream_call(), R"({"model":"a","messages":[],"stream_options":"usage"})");
  EXPECT_EQ(b->status, MGW_INVALID_ARGUMENT);
  ASSERT_TRUE(b->error.rec.error.has_value());
  EXPECT_EQ(b->error.rec.error->http_status, 400);
  EXPECT_EQ(b->error.rec.error->code, "invalid_parameter");
  EXPECT_EQ(b->error.rec.error->param, "stream_options");
  EXPECT_TRUE(b->req.body.empty());
}

TEST(BuildRequest, NonStreamCallNeverAsksForAStream) {
  // The host reads a whole JSON body when call->stream is 0, whatever the body said.
  Provider p;
  auto b = build(p, CallContext{},
                 R"({"model":"a","messages":[],"stream":true,"stream_options":{"include_usage":true}})");
  const Json body = Json::parse(b->req.body);
  EXPECT_FALSE(body.contains("stream"));
  EXPECT_FALSE(body.contains("stream_options"));
  EXPECT_EQ(b->req.header("Accept"), "application/json");
}

TEST(BuildRequest, NonStreamKeepsAnExplicitStreamFalse) {
  Provider p;
  auto b = build(p, CallContext{}, R"({"model":"a","messages":[],"stream":false})");
  EXPECT_EQ(Json::parse(b->req.body)["stream"], false);
}

TEST(BuildRequest, RefusesABodyThatIsNotAnObject) {
  Provider p;
  auto b = build(p, CallContext{}, R"([1,2])");
  EXPECT_EQ(b->status, MGW_INVALID_ARGUMENT);
  ASSERT_TRUE(b->error.rec.error.has_value());
  EXPECT_EQ(b->error.rec.error->http_status, 400);
}

}  // namespace
}  // namespace openai_test
