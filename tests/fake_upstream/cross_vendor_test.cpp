// The same conversation sent in each vendor's wire format gets the same
// answer text and the same token counts, streamed or not, so gateway tests
// can compare vendors. Also checks that one --api-key serves all three.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_support.h"

namespace {

using json = nlohmann::json;
using fake_upstream::test::call;
using fake_upstream::test::FakeUpstream;
using fake_upstream::test::parseSse;

struct Answer {
  std::string text;
  int prompt = 0;
  int completion = 0;
};

const std::string kSharedKey = "shared-key";
const std::string kSystem = "Be brief.";
const std::string kFirst = "What is\tthe answer?";
const std::string kAssistant = "It is 42.";
const std::string kLast = "  Are you   sure?  ";

Answer openai(int port, bool stream) {
  json body = {{"model", "gpt-4o-mini"},
               {"messages",
                {{{"role", "system"}, {"content", kSystem}},
                 {{"role", "user"}, {"content", kFirst}},
                 {{"role", "assistant"}, {"content", kAssistant}},
                 {{"role", "user"}, {"content", kLast}}}}};
  if (stream) {
    body["stream"] = true;
    body["stream_options"] = {{"include_usage", true}};
  }
  const auto r =
      call(port, "POST", "/v1/chat/completions", body.dump(), {"Authorization: Bearer " + kSharedKey});
  EXPECT_EQ(r.status, 200) << r.body;
  Answer a;
  if (!stream) {
    const auto j = json::parse(r.body);
    return {j["choices"][0]["message"]["content"].get<std::string>(), j["usage"]["prompt_tokens"].get<int>(),
            j["usage"]["completion_tokens"].get<int>()};
  }
  for (const auto& d : parseSse(r.body).data) {
    if (d == "[DONE]") continue;
    const auto j = json::parse(d);
    if (!j["choices"].empty() && j["choices"][0]["delta"].contains("content")) {
      a.text += j["choices"][0]["delta"]["content"].get<std::string>();
    }
    if (j.contains("usage") && !j["usage"].is_null()) {
      a.prompt = j["usage"]["prompt_tokens"].get<int>();
      a.completion = j["usage"]["completion_tokens"].get<int>();
    }
  }
  return a;
}

Answer anthropic(int port, bool stream) {
  json body = {{"model", "claude-sonnet-4"},
               {"max_tokens", 100},
               {"system", kSystem},
               {"messages",
                {{{"role", "user"}, {"content", kFirst}},
                 {{"role", "assistant"}, {"content", kAssistant}},
                 {{"role", "user"}, {"content", {{{"type", "text"}, {"text", kLast}}}}}}}};
  if (stream) body["stream"] = true;
  const auto r = call(port, "POST", "/v1/messages", body.dump(),
                      {"x-api-key: " + kSharedKey, "anthropic-version: 2023-06-01"});
  EXPECT_EQ(r.status, 200) << r.body;
  if (!stream) {
    const auto j = json::parse(r.body);
    return {j["content"][0]["text"].get<std::string>(), j["usage"]["input_tokens"].get<int>(),
            j["usage"]["output_tokens"].get<int>()};
  }
  Answer a;
  for (const auto& d : parseSse(r.body).data) {
    const auto j = json::parse(d);
    if (j["type"] == "message_start") a.prompt = j["message"]["usage"]["input_tokens"].get<int>();
    if (j["type"] == "content_block_delta") a.text += j["delta"]["text"].get<std::string>();
    if (j["type"] == "message_delta") a.completion = j["usage"]["output_tokens"].get<int>();
  }
  return a;
}

Answer gemini(int port, bool stream) {
  const json body = {{"systemInstruction", {{"parts", {{{"text", kSystem}}}}}},
                     {"contents",
                      {{{"role", "user"}, {"parts", {{{"text", kFirst}}}}},
                       {{"role", "model"}, {"parts", {{{"text", kAssistant}}}}},
                       {{"role", "user"}, {"parts", {{{"text", kLast}}}}}}}};
  const std::string path = stream ? "/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse"
                                  : "/v1beta/models/gemini-2.0-flash:generateContent";
  const auto r = call(port, "POST", path, body.dump(), {"x-goog-api-key: " + kSharedKey});
  EXPECT_EQ(r.status, 200) << r.body;
  std::vector<json> chunks;
  if (stream) {
    for (const auto& d : parseSse(r.body).data) chunks.push_back(json::parse(d));
  } else {
    chunks.push_back(json::parse(r.body));
  }
  Answer a;
  for (const auto& j : chunks) {
    a.text += j["candidates"][0]["content"]["parts"][0]["text"].get<std::string>();
    if (j.contains("usageMetadata")) {
      a.prompt = j["usageMetadata"]["promptTokenCount"].get<int>();
      a.completion = j["usageMetadata"]["candidatesTokenCount"].get<int>();
    }
  }
  return a;
}

TEST(CrossVendor, SameConversationSameAnswerAndUsage) {
  FakeUpstream server(FAKE_UPSTREAM_BIN, {"--api-key", kSharedKey});
  for (const bool stream : {false, true}) {
    SCOPED_TRACE(stream ? "stream" : "plain");
    const auto o = openai(server.port(), stream);
    EXPECT_EQ(o.text, "echo: Are you sure?");
    EXPECT_EQ(o.completion, 4);
    EXPECT_EQ(o.prompt, (4 + 3) + (4 + 5) + (4 + 3) + (4 + 5));
    for (const auto& other : {anthropic(server.port(), stream), gemini(server.port(), stream)}) {
      EXPECT_EQ(other.text, o.text);
      EXPECT_EQ(other.prompt, o.prompt);
      EXPECT_EQ(other.completion, o.completion);
    }
  }
  EXPECT_EQ(server.stop(), 0);
}

}  // namespace
