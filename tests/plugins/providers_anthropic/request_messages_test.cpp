// on_build_request, the conversation: system, messages, content parts, tool
// calls and tool results.
#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace anthropic_test {
namespace {

// The translated `messages` of a client body holding `messages_json`.
Json messages_of(std::string_view messages_json) {
  auto b = build(R"({"model":"m","messages":)" + std::string(messages_json) + "}");
  EXPECT_EQ(b->status, MGW_OK) << (b->error.rec.error ? b->error.rec.error->message : "");
  return b->body()["messages"];
}

// The refusal of a client body holding `messages_json`: 400 invalid_parameter
// naming `param`, and nothing sent to the request sink.
mgw::testing::RecordedError refusal(std::string_view messages_json, std::string_view param) {
  auto b = build(R"({"model":"m","messages":)" + std::string(messages_json) + "}");
  EXPECT_EQ(b->status, MGW_INVALID_ARGUMENT);
  EXPECT_TRUE(b->req.body.empty());
  EXPECT_TRUE(b->req.path.empty());
  const auto e = b->error.rec.error.value_or(mgw::testing::RecordedError{});
  EXPECT_EQ(e.http_status, 400) << e.message;
  EXPECT_EQ(e.code, "invalid_parameter");
  EXPECT_EQ(e.param, param) << e.message;
  EXPECT_FALSE(e.retryable);
  return e;
}

TEST(RequestMessages, AWholeToolConversationMatchesTheGoldenRequest) {
  auto b = build(fixture("request_conversation.json"));
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_EQ(b->req.method, "POST");
  EXPECT_EQ(b->req.path, "/messages");
  // Compared as unordered JSON: member order is not part of the contract.
  EXPECT_EQ(nlohmann::json::parse(b->req.body),
            nlohmann::json::parse(fixture("request_conversation.anthropic.json")))
      << b->req.body;
}

TEST(RequestMessages, SystemAndDeveloperMessagesAnywhereJoinIntoTopLevelSystem) {
  auto b = build(R"({"model":"m","messages":[
    {"role":"user","content":"hi"},
    {"role":"system","content":"First rule."},
    {"role":"assistant","content":"hello"},
    {"role":"developer","content":[{"type":"text","text":"Second rule."},{"type":"text","text":"Third."}]},
    {"role":"user","content":"go"}]})");
  ASSERT_EQ(b->status, MGW_OK);
  const Json body = b->body();
  EXPECT_EQ(body["system"], "First rule.\n\nSecond rule.\n\nThird.");
  ASSERT_EQ(body["messages"].size(), 3u);
  EXPECT_EQ(body["messages"][0], Json::parse(R"({"role":"user","content":"hi"})"));
  EXPECT_EQ(body["messages"][1], Json::parse(R"({"role":"assistant","content":"hello"})"));
  EXPECT_EQ(body["messages"][2], Json::parse(R"({"role":"user","content":"go"})"));
}

TEST(RequestMessages, NoSystemMessageMeansNoSystemMember) {
  auto b = build(R"({"model":"m","messages":[{"role":"user","content":"hi"}]})");
  ASSERT_EQ(b->status, MGW_OK);
  EXPECT_FALSE(b->body().contains("system"));
}

TEST(RequestMessages, ASystemMessageTakesTextPartsOnly) {
  refusal(R"([{"role":"system","content":[{"type":"text","text":"a"},
              {"type":"image_url","image_url":{"url":"https://x/y.png"}}]},{"role":"user","content":"q"}])",
          "messages[0].content[1]");
}

TEST(RequestMessages, UserStringContentStaysAString) {
  EXPECT_EQ(messages_of(R"([{"role":"user","content":"Hello there"}])"),
            Json::parse(R"([{"role":"user","content":"Hello there"}])"));
}

TEST(RequestMessages, TextPartsBecomeTextBlocks) {
  EXPECT_EQ(
      messages_of(
          R"([{"role":"user","content":[{"type":"text","text":"one"},{"type":"text","text":"two"}]}])"),
      Json::parse(
          R"([{"role":"user","content":[{"type":"text","text":"one"},{"type":"text","text":"two"}]}])"));
}

TEST(RequestMessages, ADataUrlImageBecomesABase64Source) {
  const Json m = messages_of(
      R"([{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}])");
  EXPECT_EQ(m[0]["content"][0],
            Json::parse(R"({"type":"image","source":{"type":"base64","media_type":"image/png",
                                               "data":"iVBORw0KGgo="}})"));
}

TEST(RequestMessages, AnHttpUrlImageBecomesAUrlSource) {
  const Json m = messages_of(R"([{"role":"user","content":[
      {"type":"image_url","image_url":{"url":"https://upload.wikimedia.org/cat.jpg","detail":"low"}},
      {"type":"image_url","image_url":{"url":"http://example.com/dog.png"}}]}])");
  EXPECT_EQ(m[0]["content"][0],
            Json::parse(
                R"({"type":"image","source":{"type":"url","url":"https://upload.wikimedia.org/cat.jpg"}})"));
  EXPECT_EQ(m[0]["content"][1],
            Json::parse(R"({"type":"image","source":{"type":"url","url":"http://example.com/dog.png"}})"));
}

TEST(RequestMessages, AnImageUrlOfAnotherSchemeIsRefused) {
  refusal(R"([{"role":"user","content":[{"type":"text","text":"see"},
              {"type":"image_url","image_url":{"url":"ftp://example.com/a.png"}}]}])",
          "messages[0].content[1].image_url.url");
}

TEST(RequestMessages, ADataUrlThatIsNotBase64IsRefused) {
  refusal(
      R"([{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/svg+xml,<svg/>"}}]}])",
      "messages[0].content[0].image_url.url");
  refusal(R"([{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:;base64,AAAA"}}]}])",
          "messages[0].content[0].image_url.url");
}

TEST(RequestMessages, OtherContentPartTypesAreRefusedByPosition) {
  const auto e = refusal(R"([{"role":"user","content":"hi"},{"role":"assistant","content":"yes?"},
      {"role":"user","content":[{"type":"text","text":"listen"},
       {"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}}]}])",
                         "messages[2].content[1]");
  EXPECT_NE(e.message.find("'input_audio'"), std::string::npos) << e.message;
  refusal(R"([{"role":"user","content":[{"type":"file","file":{"file_id":"f"}}]}])",
          "messages[0].content[0]");
  refusal(R"([{"role":"user","content":[{"text":"no type"}]}])", "messages[0].content[0]");
  refusal(R"([{"role":"user","content":["bare string"]}])", "messages[0].content[0]");
}

TEST(RequestMessages, AssistantToolCallsBecomeToolUseBlocksAfterTheText) {
  const Json m = messages_of(R"([{"role":"user","content":"weather?"},
    {"role":"assistant","content":"Checking.","tool_calls":[
      {"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\",\"days\":[1,2]}"}}]},
    {"role":"tool","tool_call_id":"call_1","content":"cold"}])");
  EXPECT_EQ(m[1], Json::parse(R"({"role":"assistant","content":[{"type":"text","text":"Checking."},
      {"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Oslo","days":[1,2]}}]})"));
}

TEST(RequestMessages, ToolCallsWithoutContentAreOnlyToolUseBlocks) {
  const Json m = messages_of(R"([{"role":"user","content":"time?"},
    {"role":"assistant","content":null,"tool_calls":[
      {"id":"call_9","type":"function","function":{"name":"get_time","arguments":""}}]}])");
  // An empty arguments string means "no arguments".
  EXPECT_EQ(m[1], Json::parse(R"({"role":"assistant","content":[
      {"type":"tool_use","id":"call_9","name":"get_time","input":{}}]})"));
}

TEST(RequestMessages, InvalidToolArgumentsAreRefusedNamingTheCall) {
  auto b = build(fixture("request_bad_tool_arguments.json"));
  EXPECT_EQ(b->status, MGW_INVALID_ARGUMENT);
  ASSERT_TRUE(b->error.rec.error.has_value());
  EXPECT_EQ(b->error.rec.error->http_status, 400);
  EXPECT_EQ(b->error.rec.error->code, "invalid_parameter");
  EXPECT_EQ(b->error.rec.error->param, "messages[1].tool_calls[1].function.arguments");
  EXPECT_EQ(b->error.rec.error->message, "function.arguments is not valid JSON");
  EXPECT_TRUE(b->req.body.empty());
}

TEST(RequestMessages, ToolArgumentsNestedTooDeepAreRefusedNotSerialised) {
  // Drift fixed: arguments were parsed without the depth bound the other
  // providers apply to JSON inside the client's strings (the host checks the
  // body's depth only), so a hostile depth reached the recursive serialiser.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string arguments = "{\\\"a\\\":" + deep + "}";
  const auto e = refusal(R"([{"role":"assistant","tool_calls":[{"id":"c","type":"function",
              "function":{"name":"f","arguments":")" +
                             arguments + R"("}}]}])",
                         "messages[0].tool_calls[0].function.arguments");
  EXPECT_EQ(e.message, "function.arguments nests deeper than 512 levels");
}

TEST(RequestMessages, ToolArgumentsMustEncodeAnObject) {
  refusal(R"([{"role":"assistant","tool_calls":[{"id":"c","type":"function",
              "function":{"name":"f","arguments":"[1,2]"}}]}])",
          "messages[0].tool_calls[0].function.arguments");
  refusal(R"([{"role":"assistant","tool_calls":[{"id":"c","type":"function",
              "function":{"name":"f","arguments":42}}]}])",
          "messages[0].tool_calls[0].function.arguments");
}

TEST(RequestMessages, MalformedToolCallsAreRefusedByField) {
  refusal(
      R"([{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]}])",
      "messages[0].tool_calls[0].id");
  refusal(
      R"([{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"arguments":"{}"}}]}])",
      "messages[0].tool_calls[0].function.name");
  refusal(
      R"([{"role":"assistant","tool_calls":[{"id":"c","type":"custom","custom":{"name":"f","input":"x"}}]}])",
      "messages[0].tool_calls[0].type");
  refusal(R"([{"role":"assistant","tool_calls":"call_1"}])", "messages[0].tool_calls");
  refusal(R"([{"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{}"}}])",
          "messages[0].function_call");
}

TEST(RequestMessages, ConsecutiveToolResultsMergeIntoOneUserTurn) {
  const Json m = messages_of(R"([{"role":"user","content":"both?"},
    {"role":"assistant","tool_calls":[
      {"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},
      {"id":"b","type":"function","function":{"name":"g","arguments":"{}"}}]},
    {"role":"tool","tool_call_id":"a","content":"A"},
    {"role":"tool","tool_call_id":"b","content":[{"type":"text","text":"B1"},{"type":"text","text":"B2"}]}])");
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[2], Json::parse(R"({"role":"user","content":[
      {"type":"tool_result","tool_use_id":"a","content":"A"},
      {"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"B1"},{"type":"text","text":"B2"}]}]})"));
}

TEST(RequestMessages, ToolResultsComeBeforeTextInAMergedUserTurn) {
  const Json m = messages_of(R"([{"role":"user","content":"go"},
    {"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},
    {"role":"user","content":"also this"},
    {"role":"tool","tool_call_id":"a","content":"done"}])");
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[2], Json::parse(R"({"role":"user","content":[
      {"type":"tool_result","tool_use_id":"a","content":"done"},
      {"type":"text","text":"also this"}]})"));
}

TEST(RequestMessages, AToolResultWithoutContentHasNoContent) {
  const Json m = messages_of(R"([{"role":"tool","tool_call_id":"a","content":null}])");
  EXPECT_EQ(m, Json::parse(R"([{"role":"user","content":[{"type":"tool_result","tool_use_id":"a"}]}])"));
}

TEST(RequestMessages, ConsecutiveUserMessagesMergeSoRolesAlternate) {
  const Json m = messages_of(R"([{"role":"user","content":"first"},
    {"role":"user","content":[{"type":"text","text":"second"}]},{"role":"user","content":"third"}])");
  EXPECT_EQ(m, Json::parse(R"([{"role":"user","content":[{"type":"text","text":"first"},
      {"type":"text","text":"second"},{"type":"text","text":"third"}]}])"));
}

TEST(RequestMessages, ConsecutiveAssistantMessagesMerge) {
  const Json m = messages_of(R"([{"role":"user","content":"q"},
    {"role":"assistant","content":"part one"},{"role":"assistant","content":"part two"}])");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[1], Json::parse(R"({"role":"assistant","content":[{"type":"text","text":"part one"},
      {"type":"text","text":"part two"}]})"));
}

TEST(RequestMessages, AnAssistantMessageWithNothingInItIsDropped) {
  const Json m = messages_of(R"([{"role":"user","content":"a"},{"role":"assistant","content":null},
    {"role":"assistant","content":""},{"role":"assistant","tool_calls":[]},{"role":"user","content":"b"}])");
  EXPECT_EQ(m, Json::parse(
                   R"([{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}])"));
}

TEST(RequestMessages, AnAssistantRefusalPartBecomesText) {
  const Json m = messages_of(R"([{"role":"user","content":"q"},
    {"role":"assistant","content":[{"type":"refusal","refusal":"I can't help with that."}]}])");
  EXPECT_EQ(m[1]["content"], Json::parse(R"([{"type":"text","text":"I can't help with that."}])"));
}

TEST(RequestMessages, AToolMessageNeedsAToolCallId) {
  refusal(R"([{"role":"user","content":"q"},{"role":"tool","content":"r"}])", "messages[1].tool_call_id");
}

TEST(RequestMessages, AToolResultTakesTextPartsOnly) {
  refusal(R"([{"role":"tool","tool_call_id":"a","content":[
              {"type":"image_url","image_url":{"url":"https://x/y.png"}}]}])",
          "messages[0].content[0]");
}

TEST(RequestMessages, UnknownRolesAreRefused) {
  const auto e = refusal(R"([{"role":"function","name":"f","content":"r"}])", "messages[0].role");
  EXPECT_NE(e.message.find("'function'"), std::string::npos);
  refusal(R"([{"content":"no role"}])", "messages[0].role");
}

TEST(RequestMessages, MalformedMessagesAreRefusedByPosition) {
  refusal(R"([{"role":"user","content":"ok"},"not an object"])", "messages[1]");
  refusal(R"([{"role":"user"}])", "messages[0].content");
  refusal(R"([{"role":"user","content":42}])", "messages[0].content");
  refusal(R"({"role":"user"})", "messages");
}

}  // namespace
}  // namespace anthropic_test
