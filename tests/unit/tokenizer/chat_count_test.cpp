// count_chat_prompt against the OpenAI cookbook ("How to count tokens with
// tiktoken", num_tokens_from_messages) and the documented extensions.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace modelgw::tokenizer::testing {
namespace {

using nlohmann::json;

// The cookbook's example conversation.
json cookbook_request() {
  return json::parse(R"({
    "model": "gpt-4o",
    "messages": [
      {"role": "system", "content": "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
      {"role": "system", "name": "example_user", "content": "New synergies will help drive top-line growth."},
      {"role": "system", "name": "example_assistant", "content": "Things working well together will increase revenue."},
      {"role": "system", "name": "example_user", "content": "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
      {"role": "system", "name": "example_assistant", "content": "Let's talk later when we're less busy about how to do better."},
      {"role": "user", "content": "This late pivot means we don't have time to boil the ocean for the client deliverable."}
    ]
  })");
}

TEST(CountChatPrompt, MatchesTheCookbookExample) {
  // The cookbook prints 124 prompt tokens for gpt-4o / gpt-4o-mini (o200k)
  // and 129 for gpt-4 / gpt-3.5-turbo (cl100k), equal to the API's usage;
  // recomputed with the npm package when this test was written.
  EXPECT_EQ(count_chat_prompt(find_encoding("o200k_base"), cookbook_request()), 124u);
  EXPECT_EQ(count_chat_prompt(find_encoding("cl100k_base"), cookbook_request()), 129u);
}

TEST(CountChatPrompt, EmptyConversationIsTheReplyPriming) {
  const Encoding* enc = find_encoding("o200k_base");
  EXPECT_EQ(count_chat_prompt(enc, json::parse(R"({"messages": []})")), 3u);
  EXPECT_EQ(count_chat_prompt(enc, json::object()), 3u);
}

TEST(CountChatPrompt, OneMessageIsOverheadRoleAndContent) {
  const Encoding* enc = find_encoding("o200k_base");
  // 3 (message) + 1 ("user") + 2 ("hello world") + 3 (priming).
  EXPECT_EQ(count_chat_prompt(enc, json::parse(R"({"messages":[{"role":"user","content":"hello world"}]})")),
            9u);
}

TEST(CountChatPrompt, NameAddsItsTokensPlusOne) {
  const Encoding* enc = find_encoding("o200k_base");
  const auto without =
      count_chat_prompt(enc, json::parse(R"({"messages":[{"role":"user","content":"hi"}]})"));
  const auto with =
      count_chat_prompt(enc, json::parse(R"({"messages":[{"role":"user","content":"hi","name":"bob"}]})"));
  EXPECT_EQ(with, without + enc->count("bob") + 1);
}

TEST(CountChatPrompt, ArrayContentCountsTextPartsAndImagesAt85) {
  const Encoding* enc = find_encoding("o200k_base");
  const json request = json::parse(R"({"messages":[{"role":"user","content":[
      {"type":"text","text":"Describe this image"},
      {"type":"image_url","image_url":{"url":"https://example.com/cat.png","detail":"high"}},
      {"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},
      {"type":"text","text":"in one word"},
      {"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}}]}]})");
  const std::size_t text = enc->count("Describe this image") + enc->count("in one word");
  EXPECT_EQ(count_chat_prompt(enc, request), 3 + enc->count("user") + text + 2 * 85 + 3);
}

TEST(CountChatPrompt, ToolCallsCountFunctionNameAndArguments) {
  const Encoding* enc = find_encoding("o200k_base");
  const json request = json::parse(R"({"messages":[
      {"role":"user","content":"What's the weather in Paris?"},
      {"role":"assistant","content":null,"tool_calls":[
        {"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}]},
      {"role":"tool","tool_call_id":"call_1","content":"It is sunny."}]})");
  const std::size_t expected = 3 + enc->count("user") + enc->count("What's the weather in Paris?") +  //
                               3 + enc->count("assistant") + enc->count("get_weather") +
                               enc->count(R"({"location":"Paris"})") +  //
                               3 + enc->count("tool") + enc->count("It is sunny.") + 3;
  EXPECT_EQ(count_chat_prompt(enc, request), expected);
  // Pinned too, so a change of rule shows: (3+1+6) + (3+1+2+5) + (3+1+4) + 3.
  EXPECT_EQ(count_chat_prompt(enc, request), 32u);
}

TEST(CountChatPrompt, ToolDefinitionsCountAsText) {
  const Encoding* enc = find_encoding("o200k_base");
  const json base = json::parse(R"({"messages":[{"role":"user","content":"hi"}]})");
  json with_tools = base;
  with_tools["tools"] = json::parse(R"([{"type":"function","function":{
      "name":"get_weather","description":"Get the current weather",
      "parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}}])");
  const std::size_t schema =
      enc->count(R"({"type":"object","properties":{"location":{"type":"string"}},"required":["location"]})");
  EXPECT_EQ(count_chat_prompt(enc, with_tools), count_chat_prompt(enc, base) + enc->count("get_weather") +
                                                    enc->count("Get the current weather") + schema);
}

TEST(CountChatPrompt, LegacyFunctionsAndFunctionCallCount) {
  const Encoding* enc = find_encoding("cl100k_base");
  const json request = json::parse(R"({
      "messages":[{"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{}"}}],
      "functions":[{"name":"f","description":"does f"}]})");
  EXPECT_EQ(count_chat_prompt(enc, request), 3 + enc->count("assistant") + enc->count("f") +
                                                 enc->count("{}") + 3 + enc->count("f") +
                                                 enc->count("does f"));
}

TEST(CountChatPrompt, IgnoresMembersOfTheWrongTypeInsteadOfThrowing) {
  const Encoding* enc = find_encoding("o200k_base");
  for (const char* body :
       {R"({"messages": "nope"})", R"({"messages": [1, null, "x", []]})",
        R"({"messages": [{"role": 5, "content": {"a": 1}, "name": 7, "tool_calls": "x"}]})",
        R"({"messages": [{"content": [1, {"type": 2}, {"type": "text", "text": 3}]}]})",
        R"({"messages": [], "tools": [1, {"function": 2}, {"function": {"parameters": null}}]})", R"([1, 2])",
        R"("just a string")"}) {
    EXPECT_NO_THROW(count_chat_prompt(enc, json::parse(body))) << body;
    EXPECT_NO_THROW(count_chat_prompt(nullptr, json::parse(body))) << body;
  }
  // Only the overheads remain for three unusable messages.
  EXPECT_EQ(count_chat_prompt(enc, json::parse(R"({"messages": [{}, {"role": 1}, {"content": 2}]})")), 12u);
}

TEST(CountChatPrompt, NullEncodingUsesTheEstimate) {
  const json request = cookbook_request();
  std::size_t expected = 3;
  for (const json& m : request["messages"]) {
    expected +=
        3 + estimate_tokens(m["role"].get<std::string>()) + estimate_tokens(m["content"].get<std::string>());
    if (m.contains("name")) expected += estimate_tokens(m["name"].get<std::string>()) + 1;
  }
  EXPECT_EQ(count_chat_prompt(nullptr, request), expected);
  // Erring low, but not absurdly: within 30% below the real o200k count.
  const auto real = count_chat_prompt(find_encoding("o200k_base"), request);
  EXPECT_LE(count_chat_prompt(nullptr, request), real);
  EXPECT_GE(count_chat_prompt(nullptr, request), real * 7 / 10);
}

}  // namespace
}  // namespace modelgw::tokenizer::testing
