// The OpenAI Responses route of fake_upstream: the response object, the
// function call and reasoning items, the stream's event sequence, what a
// gateway must never send (previous_response_id, store not false), the
// request log and the faults. Runs the built binary with --api-key over raw
// sockets (test_support.h); every wait is bounded.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_support.h"

namespace responses_test {
namespace {

using json = nlohmann::json;
using fake_upstream::test::buildRequest;
using fake_upstream::test::call;
using fake_upstream::test::FakeUpstream;
using fake_upstream::test::parseResponse;
using fake_upstream::test::parseSse;
using fake_upstream::test::rawExchange;
using fake_upstream::test::Response;
using fake_upstream::test::SseStream;

const std::string kKey = "sk-responses-test-key";
const std::vector<std::string> kHeaders = {"Authorization: Bearer " + kKey};

// The chat conversation of the other tests, as Responses input items.
json responsesBody(const std::string& model, const std::string& userText, bool stream = false) {
  json body = {{"model", model},
               {"instructions", "You are a test."},
               {"input",
                {{{"type", "message"},
                  {"role", "user"},
                  {"content", {{{"type", "input_text"}, {"text", userText}}}}}}},
               {"store", false}};
  if (stream) body["stream"] = true;
  return body;
}

json withTools(json body) {
  body["tools"] = {{{"type", "function"},
                    {"name", "search"},
                    {"parameters", {{"type", "object"}, {"properties", {{"query", {{"type", "string"}}}}}}}}};
  return body;
}

int promptTokens(const std::vector<std::string>& texts) {
  int total = 0;
  for (const auto& t : texts) total += 4 + static_cast<int>((t.size() + 3) / 4);
  return total;
}

std::vector<json> events(const SseStream& sse) {
  std::vector<json> out;
  for (const auto& d : sse.data) out.push_back(json::parse(d));
  return out;
}

std::vector<std::string> types(const std::vector<json>& evs) {
  std::vector<std::string> out;
  for (const auto& e : evs) out.push_back(e["type"]);
  return out;
}

class ResponsesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    try {
      server_ =
          std::make_unique<FakeUpstream>(FAKE_UPSTREAM_BIN, std::vector<std::string>{"--api-key", kKey});
    } catch (const std::exception& e) {
      startError_ = e.what();
    }
  }
  static void TearDownTestSuite() { server_.reset(); }
  void SetUp() override { ASSERT_TRUE(server_) << startError_; }
  static int port() { return server_->port(); }

  static Response post(const json& body, const std::vector<std::string>& headers = kHeaders) {
    return call(port(), "POST", "/v1/responses", body.dump(), headers);
  }
  static fake_upstream::test::RawResult exchange(const json& body) {
    return rawExchange(port(), buildRequest("POST", "/v1/responses", body.dump(), kHeaders));
  }

  static std::unique_ptr<FakeUpstream> server_;
  static std::string startError_;
};

std::unique_ptr<FakeUpstream> ResponsesTest::server_;
std::string ResponsesTest::startError_;

TEST_F(ResponsesTest, ResponseShapeAndUsageMatchChat) {
  const auto r = post(responsesBody("gpt-4.1", "  Hello there\n world  "));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type"), "application/json");
  const auto j = json::parse(r.body);
  EXPECT_EQ(j["id"].get<std::string>().rfind("resp_", 0), 0u);
  EXPECT_EQ(j["object"], "response");
  EXPECT_TRUE(j["created_at"].is_number_integer());
  EXPECT_EQ(j["status"], "completed");
  EXPECT_EQ(j["model"], "gpt-4.1");
  EXPECT_EQ(j["store"], false);
  EXPECT_TRUE(j["error"].is_null());
  ASSERT_EQ(j["output"].size(), 1u);
  const auto& message = j["output"][0];
  EXPECT_EQ(message["type"], "message");
  EXPECT_EQ(message["role"], "assistant");
  EXPECT_EQ(message["status"], "completed");
  EXPECT_EQ(message["id"].get<std::string>().rfind("msg_", 0), 0u);
  EXPECT_EQ(message["content"][0]["type"], "output_text");
  EXPECT_EQ(message["content"][0]["text"], "echo: Hello there world");
  EXPECT_EQ(message["content"][0]["annotations"], json::array());
  const int p = promptTokens({"You are a test.", "  Hello there\n world  "});
  EXPECT_EQ(j["usage"], json({{"input_tokens", p},
                              {"input_tokens_details", {{"cached_tokens", 0}}},
                              {"output_tokens", 4},
                              {"output_tokens_details", {{"reasoning_tokens", 0}}},
                              {"total_tokens", p + 4}}));

  // The same conversation over chat: the same text and counts.
  const json chat = {{"model", "gpt-4.1"},
                     {"messages",
                      {{{"role", "system"}, {"content", "You are a test."}},
                       {{"role", "user"}, {"content", "  Hello there\n world  "}}}}};
  const auto c = json::parse(call(port(), "POST", "/v1/chat/completions", chat.dump(), kHeaders).body);
  EXPECT_EQ(c["choices"][0]["message"]["content"], message["content"][0]["text"]);
  EXPECT_EQ(c["usage"]["prompt_tokens"], j["usage"]["input_tokens"]);
  EXPECT_EQ(c["usage"]["completion_tokens"], j["usage"]["output_tokens"]);
}

TEST_F(ResponsesTest, AStringInputIsOneUserMessage) {
  json body = {{"model", "m"}, {"input", "Hi you"}, {"store", false}};
  const auto j = json::parse(post(body).body);
  EXPECT_EQ(j["output"][0]["content"][0]["text"], "echo: Hi you");
  EXPECT_EQ(j["usage"]["input_tokens"], promptTokens({"Hi you"}));
}

TEST_F(ResponsesTest, FunctionCallForTheFirstTool) {
  const auto j = json::parse(post(withTools(responsesBody("m", "weather in Paris"))).body);
  ASSERT_EQ(j["output"].size(), 1u);
  const auto& item = j["output"][0];
  EXPECT_EQ(item["type"], "function_call");
  EXPECT_EQ(item["name"], "search");
  EXPECT_EQ(item["call_id"], "call_fake_1");
  EXPECT_EQ(item["status"], "completed");
  EXPECT_EQ(item["id"].get<std::string>().rfind("fc_", 0), 0u);
  EXPECT_EQ(json::parse(item["arguments"].get<std::string>()), json({{"query", "weather in Paris"}}));

  // After the tool's output the answer is text again; tool_choice none too.
  json after = withTools(responsesBody("m", "weather in Paris"));
  after["input"].push_back(
      {{"type", "function_call"}, {"call_id", "call_fake_1"}, {"name", "search"}, {"arguments", "{}"}});
  after["input"].push_back(
      {{"type", "function_call_output"}, {"call_id", "call_fake_1"}, {"output", "sunny"}});
  EXPECT_EQ(json::parse(post(after).body)["output"][0]["type"], "message");
  json none = withTools(responsesBody("m", "x"));
  none["tool_choice"] = "none";
  EXPECT_EQ(json::parse(post(none).body)["output"][0]["type"], "message");
}

TEST_F(ResponsesTest, ReasoningItemLeadsWhenAskedFor) {
  json body = responsesBody("o4-mini", "Hi");
  body["reasoning"] = {{"effort", "low"}};
  auto j = json::parse(post(body).body);
  ASSERT_EQ(j["output"].size(), 2u);
  EXPECT_EQ(j["output"][0]["type"], "reasoning");
  EXPECT_EQ(j["output"][0]["summary"], json::array());
  EXPECT_FALSE(j["output"][0].contains("encrypted_content"));
  EXPECT_EQ(j["output"][1]["type"], "message");

  body["include"] = {"reasoning.encrypted_content"};
  j = json::parse(post(body).body);
  EXPECT_TRUE(j["output"][0]["encrypted_content"].is_string());
}

TEST_F(ResponsesTest, RefusesWhatAGatewayMustNotSend) {
  json previous = responsesBody("m", "x");
  previous["previous_response_id"] = "resp_123";
  auto r = post(previous);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"]["param"], "previous_response_id");
  EXPECT_EQ(json::parse(r.body)["error"]["type"], "invalid_request_error");

  for (const json& store : {json(true), json(nullptr)}) {
    json body = responsesBody("m", "x");
    body["store"] = store;
    r = post(body);
    EXPECT_EQ(r.status, 400) << store;
    EXPECT_EQ(json::parse(r.body)["error"]["param"], "store");
  }
  json absent = responsesBody("m", "x");
  absent.erase("store");
  EXPECT_EQ(post(absent).status, 400);
}

TEST_F(ResponsesTest, ValidationAndAuth) {
  EXPECT_EQ(post(responsesBody("m", "x"), {}).status, 401);
  EXPECT_EQ(json::parse(post(responsesBody("m", "x"), {}).body)["error"]["code"], "invalid_api_key");
  json noInput = responsesBody("m", "x");
  noInput.erase("input");
  EXPECT_EQ(json::parse(post(noInput).body)["error"]["param"], "input");
  EXPECT_EQ(call(port(), "POST", "/v1/responses", "{not json", kHeaders).status, 400);
  EXPECT_EQ(json::parse(post(responsesBody("m+nope", "x")).body)["error"]["param"], "model");
}

TEST_F(ResponsesTest, StreamEventSequence) {
  const auto r = post(responsesBody("gpt-4.1", "one two", true));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type").rfind("text/event-stream", 0), 0u);
  const auto sse = parseSse(r.body);
  const auto evs = events(sse);
  EXPECT_EQ(types(evs),
            (std::vector<std::string>{
                "response.created", "response.in_progress", "response.output_item.added",
                "response.content_part.added", "response.output_text.delta", "response.output_text.delta",
                "response.output_text.delta", "response.output_text.done", "response.content_part.done",
                "response.output_item.done", "response.completed"}));
  for (size_t i = 0; i < evs.size(); ++i) {
    EXPECT_EQ(sse.events[i], evs[i]["type"]) << i;  // event: matches data.type
    EXPECT_EQ(evs[i]["sequence_number"], i);
  }
  EXPECT_EQ(evs[0]["response"]["status"], "in_progress");
  EXPECT_TRUE(evs[0]["response"]["usage"].is_null());
  const std::string itemId = evs[2]["item"]["id"];
  EXPECT_EQ(evs[2]["output_index"], 0);
  EXPECT_EQ(evs[2]["item"]["status"], "in_progress");
  EXPECT_EQ(evs[3]["part"]["text"], "");
  std::string text;
  for (size_t i = 4; i <= 6; ++i) {
    EXPECT_EQ(evs[i]["item_id"], itemId);
    EXPECT_EQ(evs[i]["output_index"], 0);
    EXPECT_EQ(evs[i]["content_index"], 0);
    text += evs[i]["delta"].get<std::string>();
  }
  EXPECT_EQ(text, "echo: one two");
  EXPECT_EQ(evs[7]["text"], text);
  EXPECT_EQ(evs[8]["part"]["text"], text);
  EXPECT_EQ(evs[9]["item"]["content"][0]["text"], text);
  const auto& done = evs[10]["response"];
  EXPECT_EQ(done["status"], "completed");
  EXPECT_EQ(done["id"], evs[0]["response"]["id"]);
  EXPECT_EQ(done["output"][0]["content"][0]["text"], text);
  EXPECT_EQ(done["usage"]["output_tokens"], 3);
  EXPECT_EQ(done["usage"]["input_tokens"], promptTokens({"You are a test.", "one two"}));
  EXPECT_EQ(r.body.find("[DONE]"), std::string::npos);
}

TEST_F(ResponsesTest, StreamedFunctionCallAndReasoning) {
  json body = withTools(responsesBody("m", "a b", true));
  body["reasoning"] = {{"effort", "low"}};
  body["include"] = {"reasoning.encrypted_content"};
  const auto evs = events(parseSse(post(body).body));
  const auto t = types(evs);
  ASSERT_GE(evs.size(), 8u);
  EXPECT_EQ(
      std::vector<std::string>(t.begin(), t.begin() + 5),
      (std::vector<std::string>{"response.created", "response.in_progress", "response.output_item.added",
                                "response.output_item.done", "response.output_item.added"}));
  EXPECT_EQ(evs[2]["item"]["type"], "reasoning");
  EXPECT_TRUE(evs[3]["item"]["encrypted_content"].is_string());
  EXPECT_EQ(evs[4]["item"]["type"], "function_call");
  EXPECT_EQ(evs[4]["output_index"], 1);
  std::string arguments;
  size_t i = 5;
  for (; i < evs.size() && evs[i]["type"] == "response.function_call_arguments.delta"; ++i) {
    EXPECT_EQ(evs[i]["output_index"], 1);
    arguments += evs[i]["delta"].get<std::string>();
  }
  ASSERT_EQ(evs.size(), i + 3);
  EXPECT_EQ(evs[i]["type"], "response.function_call_arguments.done");
  EXPECT_EQ(evs[i]["arguments"], arguments);
  EXPECT_EQ(evs[i]["name"], "search");
  EXPECT_EQ(json::parse(arguments), json({{"query", "a b"}}));
  EXPECT_EQ(evs[i + 1]["type"], "response.output_item.done");
  EXPECT_EQ(evs[i + 1]["item"]["arguments"], arguments);
  EXPECT_EQ(evs[i + 2]["type"], "response.completed");
  EXPECT_EQ(evs[i + 2]["response"]["output"].size(), 2u);
}

TEST_F(ResponsesTest, RequestsAreLogged) {
  ASSERT_EQ(call(port(), "DELETE", "/_fake/requests").status, 200);
  const json body = responsesBody("m", "logged");
  ASSERT_EQ(post(body).status, 200);
  const auto log = json::parse(call(port(), "GET", "/_fake/requests").body);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0]["method"], "POST");
  EXPECT_EQ(log[0]["path"], "/v1/responses");
  EXPECT_EQ(log[0]["body"], body);
}

TEST_F(ResponsesTest, Faults) {
  auto r = post(responsesBody("m+status=429+retry_after=2", "x"));
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.header("retry-after"), "2");
  EXPECT_EQ(json::parse(r.body)["error"]["code"], "rate_limit_exceeded");
  EXPECT_EQ(json::parse(post(responsesBody("m+quota", "x")).body)["error"]["code"], "insufficient_quota");
  EXPECT_EQ(post(responsesBody("m+html", "x")).status, 502);
  EXPECT_EQ(post(responsesBody("m+garbage", "x")).body.rfind("{\"id\": \"resp_broken\"", 0), 0u);

  const auto failed = json::parse(post(responsesBody("m+error200", "x")).body);
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["error"]["code"], "server_error");

  const auto streamFailed = events(parseSse(post(responsesBody("m+error200", "x", true)).body));
  EXPECT_EQ(types(streamFailed),
            (std::vector<std::string>{"response.created", "response.in_progress", "response.failed"}));

  const auto words = json::parse(post(responsesBody("m+words=3", "x")).body);
  EXPECT_EQ(words["output"][0]["content"][0]["text"], "tok0 tok1 tok2");
  EXPECT_EQ(words["usage"]["output_tokens"], 3);
  EXPECT_TRUE(json::parse(post(responsesBody("m+no_usage", "x")).body)["usage"].is_null());

  const auto raw = exchange(responsesBody("m+words=5+cut_after=2", "x", true));
  EXPECT_TRUE(raw.eof);
  const auto cut = parseResponse(raw.bytes);
  EXPECT_FALSE(cut.complete);
  const auto cutTypes = types(events(parseSse(cut.body)));
  EXPECT_EQ(std::count(cutTypes.begin(), cutTypes.end(), "response.output_text.delta"), 2);
  EXPECT_EQ(std::count(cutTypes.begin(), cutTypes.end(), "response.completed"), 0);

  const auto split = post(responsesBody("m+split", "a b", true));
  EXPECT_NE(split.body.find("\r\n\r\n"), std::string::npos);
  EXPECT_EQ(types(events(parseSse(split.body))).back(), "response.completed");
}

}  // namespace
}  // namespace responses_test
