// The Gemini generateContent / streamGenerateContent routes of fake_upstream:
// shape, auth, validation, the functionCall answer, SSE and JSON-array
// streams, and every fault. Runs the built binary with --api-key over raw
// sockets (test_support.h); every wait is bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_support.h"

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
using fake_upstream::test::buildRequest;
using fake_upstream::test::call;
using fake_upstream::test::FakeUpstream;
using fake_upstream::test::parseResponse;
using fake_upstream::test::parseSse;
using fake_upstream::test::rawExchange;
using fake_upstream::test::Response;
using fake_upstream::test::SseStream;

const std::string kGeminiKey = "AIza-fake-test-key";
const std::vector<std::string> kGeminiHeaders = {"x-goog-api-key: " + kGeminiKey};
const std::string kJsonType = "application/json; charset=UTF-8";

json contentsBody(const std::string& userText) {
  return {{"systemInstruction", {{"parts", {{{"text", "You are a test."}}}}}},
          {"contents", {{{"role", "user"}, {"parts", {{{"text", userText}}}}}}}};
}

json withGeminiTools(json body) {
  body["tools"] = {
      {{"functionDeclarations",
        {{{"name", "search"},
          {"description", "Search"},
          {"parameters", {{"type", "OBJECT"}, {"properties", {{"query", {{"type", "STRING"}}}}}}}},
         {{"name", "other"}}}}}};
  return body;
}

std::string generatePath(const std::string& model) {
  return "/v1beta/models/" + model + ":generateContent";
}

std::string streamPath(const std::string& model, bool sse = true) {
  return "/v1beta/models/" + model + ":streamGenerateContent" + (sse ? "?alt=sse" : "");
}

int geminiPromptTokens(const std::vector<std::string>& texts) {
  int total = 0;
  for (const auto& t : texts) total += 4 + static_cast<int>((t.size() + 3) / 4);
  return total;
}

std::vector<json> parseAll(const SseStream& sse) {
  std::vector<json> out;
  for (const auto& d : sse.data) out.push_back(json::parse(d));
  return out;
}

std::string joinedText(const std::vector<json>& chunks) {
  std::string text;
  for (const auto& c : chunks) {
    if (!c.contains("candidates")) continue;
    for (const auto& part : c["candidates"][0]["content"]["parts"]) {
      if (part.contains("text")) text += part["text"].get<std::string>();
    }
  }
  return text;
}

class GeminiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      server_ = std::make_unique<FakeUpstream>(FAKE_UPSTREAM_BIN,
                                               std::vector<std::string>{"--api-key", kGeminiKey});
    } catch (const std::exception& e) {
      startError_ = e.what();
    }
  }
  static void TearDownTestSuite() { server_.reset(); }
  void SetUp() override { ASSERT_TRUE(server_) << startError_; }
  static int port() { return server_->port(); }

  static Response post(const std::string& path, const json& body,
                       const std::vector<std::string>& headers = kGeminiHeaders) {
    return call(port(), "POST", path, body.dump(), headers);
  }
  static Response generate(const std::string& model, const json& body) {
    return post(generatePath(model), body);
  }
  static Response stream(const std::string& model, const json& body) { return post(streamPath(model), body); }
  static fake_upstream::test::RawResult exchange(const std::string& path, const json& body) {
    return rawExchange(port(), buildRequest("POST", path, body.dump(), kGeminiHeaders));
  }

  static std::unique_ptr<FakeUpstream> server_;
  static std::string startError_;
};

std::unique_ptr<FakeUpstream> GeminiTest::server_;
std::string GeminiTest::startError_;

TEST_F(GeminiTest, GenerateContentShapeAndUsage) {
  const auto r = generate("gemini-2.0-flash", contentsBody("  Hello there\n world  "));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type"), kJsonType);
  EXPECT_TRUE(r.complete);
  const auto j = json::parse(r.body);
  ASSERT_EQ(j["candidates"].size(), 1u);
  const auto& candidate = j["candidates"][0];
  EXPECT_EQ(candidate["content"],
            json::parse(R"({"role":"model","parts":[{"text":"echo: Hello there world"}]})"));
  EXPECT_EQ(candidate["finishReason"], "STOP");
  EXPECT_EQ(candidate["index"], 0);
  const int prompt = geminiPromptTokens({"You are a test.", "  Hello there\n world  "});
  EXPECT_EQ(
      j["usageMetadata"],
      json({{"promptTokenCount", prompt}, {"candidatesTokenCount", 4}, {"totalTokenCount", prompt + 4}}));
  EXPECT_EQ(j["modelVersion"], "gemini-2.0-flash");
  EXPECT_EQ(j["responseId"].get<std::string>().rfind("fake-", 0), 0u);
}

TEST_F(GeminiTest, MultiTurnPartsAndRoles) {
  json body = {
      {"contents",
       {{{"role", "user"}, {"parts", {{{"text", "first"}}}}},
        {{"role", "model"}, {"parts", {{{"text", "answer"}}}}},
        // No role: a user turn, as Gemini treats it.
        {{"parts",
          {{{"text", "part one"}}, {{"inlineData", {{"mimeType", "image/png"}}}}, {{"text", "two"}}}}}}}};
  const auto j = json::parse(generate("gemini-2.0-flash", body).body);
  EXPECT_EQ(j["candidates"][0]["content"]["parts"][0]["text"], "echo: part one two");
  EXPECT_EQ(j["usageMetadata"]["promptTokenCount"], geminiPromptTokens({"first", "answer", "part one two"}));
}

TEST_F(GeminiTest, ApiKeyHeader) {
  const std::string invalid =
      R"({"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT",)"
      R"("details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}})";
  auto r = post(generatePath("gemini-2.0-flash"), contentsBody("hi"), {});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.header("content-type"), kJsonType);
  EXPECT_EQ(r.body, invalid);
  r = post(generatePath("gemini-2.0-flash"), contentsBody("hi"), {"x-goog-api-key: wrong"});
  EXPECT_EQ(r.body, invalid);
  // Neither the OpenAI header nor the key in the URL counts.
  r = post(generatePath("gemini-2.0-flash"), contentsBody("hi"), {"Authorization: Bearer " + kGeminiKey});
  EXPECT_EQ(r.status, 400);
  r = post(generatePath("gemini-2.0-flash") + "?key=" + kGeminiKey, contentsBody("hi"), {});
  EXPECT_EQ(r.status, 400);
  r = post(streamPath("gemini-2.0-flash"), contentsBody("hi"), {});
  EXPECT_EQ(r.body, invalid);
  r = post(generatePath("gemini-2.0-flash"), contentsBody("hi"), {"X-Goog-Api-Key: " + kGeminiKey});
  EXPECT_EQ(r.status, 200);
}

TEST_F(GeminiTest, ValidationErrors) {
  struct Case {
    std::string body;
    std::string message;
  };
  const Case cases[] = {
      {"{not json", "Invalid JSON payload received. Unexpected token."},
      {"{}", "* GenerateContentRequest.contents: contents is not specified\n"},
      {R"({"contents":[]})", "* GenerateContentRequest.contents: contents is not specified\n"},
      {R"({"contents":"hi"})",
       "Invalid value at 'contents' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    const auto r = call(port(), "POST", generatePath("gemini-2.0-flash"), c.body, kGeminiHeaders);
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(json::parse(r.body),
              json({{"error", {{"code", 400}, {"message", c.message}, {"status", "INVALID_ARGUMENT"}}}}));
  }
  const auto bad = generate("gemini-2.0-flash+bogus", contentsBody("hi"));
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(json::parse(bad.body)["error"]["status"], "INVALID_ARGUMENT");
  EXPECT_NE(bad.body.find("bogus"), std::string::npos);

  // Unknown actions are not Gemini routes.
  EXPECT_EQ(post("/v1beta/models/gemini-2.0-flash:predict", contentsBody("hi")).status, 404);
  EXPECT_EQ(call(port(), "GET", generatePath("gemini-2.0-flash"), "", kGeminiHeaders).status, 404);
}

TEST_F(GeminiTest, ModelIsPercentDecodedFromThePath) {
  auto r = generate("gemini-2.0-flash%2Bstatus%3D503", contentsBody("hi"));
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(json::parse(r.body)["error"]["status"], "UNAVAILABLE");
  r = generate("gemini-2.0-flash+words=2", contentsBody("hi"));
  ASSERT_EQ(r.status, 200);
  const auto j = json::parse(r.body);
  EXPECT_EQ(j["modelVersion"], "gemini-2.0-flash");
  EXPECT_EQ(j["candidates"][0]["content"]["parts"][0]["text"], "tok0 tok1");
  r = generate("gemini%2D2.0-flash", contentsBody("hi"));
  EXPECT_EQ(json::parse(r.body)["modelVersion"], "gemini-2.0-flash");
}

TEST_F(GeminiTest, FunctionCallAnswer) {
  auto r = generate("gemini-2.0-flash", withGeminiTools(contentsBody("find cats")));
  ASSERT_EQ(r.status, 200) << r.body;
  auto j = json::parse(r.body);
  EXPECT_EQ(
      j["candidates"][0]["content"],
      json::parse(
          R"({"role":"model","parts":[{"functionCall":{"name":"search","args":{"query":"find cats"}}}]})"));
  EXPECT_EQ(j["candidates"][0]["finishReason"], "STOP");
  EXPECT_EQ(j["usageMetadata"]["candidatesTokenCount"], 3);

  // snake_case is accepted too, as by the real API.
  json snake = contentsBody("find dogs");
  snake["tools"] = {{{"function_declarations", {{{"name", "lookup"}}}}}};
  j = json::parse(generate("gemini-2.0-flash", snake).body);
  EXPECT_EQ(j["candidates"][0]["content"]["parts"][0]["functionCall"]["name"], "lookup");

  // After a function response, or with mode NONE: text.
  json after = withGeminiTools(contentsBody("find cats"));
  after["contents"].push_back(
      {{"role", "model"},
       {"parts", {{{"functionCall", {{"name", "search"}, {"args", {{"query", "find cats"}}}}}}}}});
  after["contents"].push_back(
      {{"role", "user"},
       {"parts", {{{"functionResponse", {{"name", "search"}, {"response", {{"result", "42"}}}}}}}}});
  j = json::parse(generate("gemini-2.0-flash", after).body);
  EXPECT_TRUE(j["candidates"][0]["content"]["parts"][0].contains("text"));
  json none = withGeminiTools(contentsBody("find cats"));
  none["toolConfig"] = {{"functionCallingConfig", {{"mode", "NONE"}}}};
  j = json::parse(generate("gemini-2.0-flash", none).body);
  EXPECT_EQ(j["candidates"][0]["content"]["parts"][0]["text"], "echo: find cats");

  // Streamed: one final chunk with the call.
  r = stream("gemini-2.0-flash", withGeminiTools(contentsBody("find cats")));
  const auto chunks = parseAll(parseSse(r.body));
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0]["candidates"][0]["content"]["parts"][0]["functionCall"]["args"]["query"], "find cats");
  EXPECT_EQ(chunks[0]["candidates"][0]["finishReason"], "STOP");
  EXPECT_TRUE(chunks[0].contains("usageMetadata"));
}

TEST_F(GeminiTest, SseStreamFraming) {
  const auto r = stream("gemini-2.0-flash", contentsBody("one two three"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type"), "text/event-stream");
  EXPECT_TRUE(r.chunked);
  EXPECT_TRUE(r.complete);
  const auto sse = parseSse(r.body);
  ASSERT_EQ(sse.data.size(), 4u);  // one per word, no [DONE]
  std::string expected;
  for (const auto& d : sse.data) expected += "data: " + d + "\r\n\r\n";
  EXPECT_EQ(r.body, expected) << "each event is 'data: <json>\\r\\n\\r\\n' and nothing else";
  const auto chunks = parseAll(sse);
  const int prompt = geminiPromptTokens({"You are a test.", "one two three"});
  for (size_t i = 0; i < chunks.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& c = chunks[i];
    EXPECT_EQ(c["modelVersion"], "gemini-2.0-flash");
    EXPECT_EQ(c["responseId"], chunks[0]["responseId"]);
    EXPECT_EQ(c["candidates"][0]["content"]["role"], "model");
    EXPECT_EQ(c["candidates"][0]["index"], 0);
    const bool last = i + 1 == chunks.size();
    EXPECT_EQ(c["candidates"][0].contains("finishReason"), last);
    EXPECT_EQ(c.contains("usageMetadata"), last);
  }
  EXPECT_EQ(chunks[0]["candidates"][0]["content"]["parts"][0]["text"], "echo: ");
  EXPECT_EQ(chunks[3]["candidates"][0]["content"]["parts"][0]["text"], "three");
  EXPECT_EQ(chunks[3]["candidates"][0]["finishReason"], "STOP");
  EXPECT_EQ(
      chunks[3]["usageMetadata"],
      json({{"promptTokenCount", prompt}, {"candidatesTokenCount", 4}, {"totalTokenCount", prompt + 4}}));
  EXPECT_EQ(joinedText(chunks), "echo: one two three");
}

TEST_F(GeminiTest, StreamWithoutAltSseIsAJsonArray) {
  const auto r = post(streamPath("gemini-2.0-flash", /*sse=*/false), contentsBody("one two"));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), kJsonType);
  EXPECT_TRUE(r.complete);
  const auto array = json::parse(r.body);
  ASSERT_TRUE(array.is_array());
  ASSERT_EQ(array.size(), 3u);
  EXPECT_EQ(joinedText(std::vector<json>(array.begin(), array.end())), "echo: one two");
  EXPECT_EQ(array[2]["candidates"][0]["finishReason"], "STOP");
}

TEST_F(GeminiTest, StatusFaults) {
  struct Case {
    std::string model;
    int status;
    std::string canonical;
  };
  const Case cases[] = {
      {"g+status=429", 429, "RESOURCE_EXHAUSTED"}, {"g+status=500", 500, "INTERNAL"},
      {"g+status=503", 503, "UNAVAILABLE"},        {"g+status=504", 504, "DEADLINE_EXCEEDED"},
      {"g+status=400", 400, "INVALID_ARGUMENT"},   {"g+status=401", 401, "UNAUTHENTICATED"},
      {"g+status=403", 403, "PERMISSION_DENIED"},  {"g+status=404", 404, "NOT_FOUND"},
      {"g+status=502", 502, "INTERNAL"},           {"g+status=418", 418, "FAILED_PRECONDITION"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.model);
    for (const bool isStream : {false, true}) {
      const auto r = isStream ? stream(c.model, contentsBody("hi")) : generate(c.model, contentsBody("hi"));
      EXPECT_EQ(r.status, c.status);
      EXPECT_EQ(r.header("content-type"), kJsonType);
      const auto j = json::parse(r.body);
      EXPECT_EQ(j["error"]["code"], c.status);
      EXPECT_EQ(j["error"]["status"], c.canonical);
      EXPECT_FALSE(j["error"]["message"].get<std::string>().empty());
      EXPECT_EQ(r.header("retry-after"), "");
    }
  }
  EXPECT_NE(generate("gemini-x+status=404", contentsBody("hi")).body.find("models/gemini-x is not found"),
            std::string::npos);
}

TEST_F(GeminiTest, RateLimitRetryInfo) {
  auto retryDelay = [](const json& j) {
    for (const auto& d : j["error"]["details"]) {
      if (d["@type"] == "type.googleapis.com/google.rpc.RetryInfo") return d["retryDelay"].get<std::string>();
    }
    return std::string();
  };
  auto r = generate("gemini-2.0-flash+status=429", contentsBody("hi"));
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.header("retry-after"), "") << "Gemini sends no Retry-After by itself";
  auto j = json::parse(r.body);
  EXPECT_EQ(retryDelay(j), "1s");
  EXPECT_EQ(j["error"]["details"][0]["@type"], "type.googleapis.com/google.rpc.QuotaFailure");

  r = generate("gemini-2.0-flash+status=429+retry_after=7", contentsBody("hi"));
  EXPECT_EQ(r.header("retry-after"), "7");
  j = json::parse(r.body);
  EXPECT_EQ(retryDelay(j), "7s");
  EXPECT_NE(j["error"]["message"].get<std::string>().find("Please retry in 7s."), std::string::npos);

  r = generate("gemini-2.0-flash+quota", contentsBody("hi"));
  EXPECT_EQ(r.status, 429);
  j = json::parse(r.body);
  EXPECT_EQ(j["error"]["status"], "RESOURCE_EXHAUSTED");
  EXPECT_EQ(retryDelay(j), "") << "a daily quota has no RetryInfo";
}

TEST_F(GeminiTest, ContextHtmlGarbage) {
  auto r = generate("g+context", contentsBody("hi"));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(
      json::parse(r.body),
      json::parse(R"({"error":{"code":400,"message":"The input token count (1048577) exceeds the maximum )"
                  R"(number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}})"));

  r = stream("g+html", contentsBody("hi"));
  EXPECT_EQ(r.status, 502);
  EXPECT_EQ(r.header("content-type"), "text/html");
  EXPECT_NE(r.body.find("<title>502 Bad Gateway</title>"), std::string::npos);

  r = generate("g+garbage", contentsBody("hi"));
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(json::parse(r.body, nullptr, false).is_discarded());
}

TEST_F(GeminiTest, Error200) {
  const std::string internal =
      R"({"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}})";
  auto r = generate("g+error200", contentsBody("hi"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, internal);

  r = stream("g+error200", contentsBody("one two three"));
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.complete);
  const auto sse = parseSse(r.body);
  ASSERT_EQ(sse.data.size(), 2u);
  EXPECT_EQ(json::parse(sse.data[0])["candidates"][0]["content"]["parts"][0]["text"], "echo: ");
  EXPECT_EQ(sse.data[1], internal);
  EXPECT_EQ(r.body.substr(r.body.size() - internal.size() - 10), "data: " + internal + "\r\n\r\n");
}

TEST_F(GeminiTest, CutAfter) {
  auto raw = exchange(streamPath("g+words=10+cut_after=2"), contentsBody("x"));
  EXPECT_TRUE(raw.eof);
  auto r = parseResponse(raw.bytes);
  EXPECT_EQ(r.status, 200);
  EXPECT_FALSE(r.complete);
  auto chunks = parseAll(parseSse(r.body));
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(joinedText(chunks), "tok0 tok1 ");

  // Past the end: everything but the finishReason chunk.
  r = parseResponse(exchange(streamPath("g+cut_after=99"), contentsBody("a b")).bytes);
  EXPECT_FALSE(r.complete);
  chunks = parseAll(parseSse(r.body));
  ASSERT_EQ(chunks.size(), 2u);
  for (const auto& c : chunks) EXPECT_FALSE(c["candidates"][0].contains("finishReason"));

  raw = exchange(generatePath("g+cut_after=10"), contentsBody("x"));
  EXPECT_TRUE(raw.eof);
  r = parseResponse(raw.bytes);
  EXPECT_EQ(r.body.size(), 10u);
  EXPECT_FALSE(r.complete);
}

TEST_F(GeminiTest, SplitAndComments) {
  const auto split = stream("g+split", contentsBody("alpha beta"));
  ASSERT_EQ(split.status, 200);
  EXPECT_TRUE(split.complete);
  ASSERT_GT(split.chunkSizes.size(), 20u);
  for (size_t size : split.chunkSizes) {
    EXPECT_GE(size, 1u);
    EXPECT_LE(size, 7u);
  }
  EXPECT_EQ(split.body.rfind(": keep-alive\r\n\r\n", 0), 0u);
  const auto plain = stream("g", contentsBody("alpha beta"));
  EXPECT_EQ(joinedText(parseAll(parseSse(split.body))), joinedText(parseAll(parseSse(plain.body))));

  const auto commented = stream("g+comments", contentsBody("alpha beta"));
  const auto sse = parseSse(commented.body);
  EXPECT_EQ(sse.data.size(), 3u);
  EXPECT_EQ(sse.comments.size(), 3u);
  EXPECT_EQ(commented.body.rfind(": comment\r\n\r\ndata: {", 0), 0u);
  for (size_t i = 0; i < commented.body.size(); ++i) {
    if (commented.body[i] == '\n') {
      ASSERT_TRUE(i > 0 && commented.body[i - 1] == '\r') << i;
    }
  }
}

TEST_F(GeminiTest, WordsNoUsageAndDelays) {
  auto start = Clock::now();
  EXPECT_EQ(generate("g+delay_ms=300", contentsBody("hi")).status, 200);
  EXPECT_GE(Clock::now() - start, 300ms);

  start = Clock::now();
  auto r = stream("g+words=5+chunk_delay_ms=40", contentsBody("ignored"));
  const auto elapsed = Clock::now() - start;
  const auto chunks = parseAll(parseSse(r.body));
  ASSERT_EQ(chunks.size(), 5u);
  EXPECT_EQ(joinedText(chunks), "tok0 tok1 tok2 tok3 tok4");
  EXPECT_EQ(chunks.back()["usageMetadata"]["candidatesTokenCount"], 5);
  EXPECT_GE(elapsed, 4 * 40ms);

  r = stream("g+words=0", contentsBody("hi"));
  const auto empty = parseAll(parseSse(r.body));
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0]["candidates"][0]["content"]["parts"][0]["text"], "");
  EXPECT_EQ(empty[0]["candidates"][0]["finishReason"], "STOP");

  EXPECT_FALSE(json::parse(generate("g+no_usage", contentsBody("hi")).body).contains("usageMetadata"));
  for (const auto& c : parseAll(parseSse(stream("g+no_usage", contentsBody("a b")).body))) {
    EXPECT_FALSE(c.contains("usageMetadata"));
  }
}

TEST_F(GeminiTest, RequestLogRecordsHeadersPathAndQuery) {
  ASSERT_EQ(call(port(), "DELETE", "/_fake/requests").status, 200);
  stream("gemini-2.0-flash", contentsBody("logged"));
  const auto log = json::parse(call(port(), "GET", "/_fake/requests").body);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0]["method"], "POST");
  EXPECT_EQ(log[0]["path"], "/v1beta/models/gemini-2.0-flash:streamGenerateContent");
  EXPECT_EQ(log[0]["query"], "alt=sse");
  EXPECT_EQ(log[0]["headers"]["x-goog-api-key"], kGeminiKey);
  EXPECT_EQ(log[0]["body"]["contents"][0]["parts"][0]["text"], "logged");
}

}  // namespace
