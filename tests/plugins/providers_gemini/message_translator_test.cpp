// messages → contents / systemInstruction: one test per translation rule.
#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace gemini_test {
namespace {

// The body Gemini gets for `messages` (a JSON array).
Json translated(std::string_view messages) {
  return gemini_body(R"({"model":"m","messages":)" + std::string(messages) + "}");
}

mgw::testing::RecordedError refused_messages(std::string_view messages) {
  return refused(R"({"model":"m","messages":)" + std::string(messages) + "}");
}

TEST(Messages, UserAndAssistantBecomeUserAndModelTurns) {
  const Json body = translated(R"([
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Hello! How can I help?"},
    {"role": "user", "content": "Weather in Paris?"}])");
  EXPECT_EQ(body["contents"], Json::parse(R"([
    {"role": "user", "parts": [{"text": "Hi"}]},
    {"role": "model", "parts": [{"text": "Hello! How can I help?"}]},
    {"role": "user", "parts": [{"text": "Weather in Paris?"}]}])"));
  EXPECT_FALSE(body.contains("systemInstruction"));
}

TEST(Messages, SystemAndDeveloperMessagesJoinIntoOneSystemInstruction) {
  const Json body = translated(R"([
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Hi"},
    {"role": "developer", "content": [{"type": "text", "text": "Answer in French."},
                                      {"type": "text", "text": "No emojis."}]}])");
  EXPECT_EQ(body["systemInstruction"],
            Json::parse(R"({"parts": [{"text": "You are terse.\n\nAnswer in French.\nNo emojis."}]})"));
  // System messages leave no trace in contents, wherever they stood.
  EXPECT_EQ(body["contents"], Json::parse(R"([{"role": "user", "parts": [{"text": "Hi"}]}])"));
}

TEST(Messages, AnEmptySystemMessageAddsNoInstruction) {
  const Json body = translated(R"([{"role": "system", "content": ""}, {"role": "user", "content": "Hi"}])");
  EXPECT_FALSE(body.contains("systemInstruction"));
}

TEST(Messages, ASystemMessageMayOnlyHoldText) {
  const auto e = refused_messages(R"([{"role": "system", "content": [{"type": "image_url",
      "image_url": {"url": "https://example.com/a.png"}}]}, {"role": "user", "content": "Hi"}])");
  EXPECT_EQ(e.param, "messages[0].content[0]");
}

TEST(Messages, TextPartsBecomeTextParts) {
  const Json body = translated(R"([{"role": "user", "content": [
    {"type": "text", "text": "Describe"}, {"type": "text", "text": "briefly."}]}])");
  EXPECT_EQ(body["contents"][0]["parts"], Json::parse(R"([{"text": "Describe"}, {"text": "briefly."}])"));
}

TEST(Messages, EmptyTextsAreLeftOutAndAnEmptyTurnDropped) {
  // Gemini refuses empty text parts and contents without parts.
  const Json body = translated(R"([
    {"role": "user", "content": [{"type": "text", "text": ""}, {"type": "text", "text": "Hi"}]},
    {"role": "assistant", "content": ""},
    {"role": "user", "content": "Again"}])");
  EXPECT_EQ(body["contents"],
            Json::parse(R"([{"role": "user", "parts": [{"text": "Hi"}, {"text": "Again"}]}])"));
}

TEST(Messages, ADataUrlImageBecomesInlineData) {
  const Json body = translated(R"([{"role": "user", "content": [
    {"type": "text", "text": "What is this?"},
    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "high"}}]}])");
  EXPECT_EQ(body["contents"][0]["parts"][1],
            Json::parse(R"({"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}})"));
}

TEST(Messages, ADataUrlKeepsOnlyTheMediaType) {
  const Json body = translated(R"([{"role": "user", "content": [
    {"type": "image_url", "image_url": {"url": "data:image/webp;name=x.webp;base64,UklGRg=="}}]}])");
  EXPECT_EQ(body["contents"][0]["parts"][0]["inlineData"]["mimeType"], "image/webp");
  EXPECT_EQ(body["contents"][0]["parts"][0]["inlineData"]["data"], "UklGRg==");
}

TEST(Messages, AnHttpImageBecomesFileDataWithAGuessedType) {
  const Json body = translated(R"([{"role": "user", "content": [
    {"type": "image_url", "image_url": {"url": "https://example.com/cats/tabby.PNG?size=large#top"}},
    {"type": "image_url", "image_url": {"url": "http://example.com/a.webp"}},
    {"type": "image_url", "image_url": {"url": "https://example.com/photo.jpeg"}},
    {"type": "image_url", "image_url": {"url": "https://example.com/anim.gif"}},
    {"type": "image_url", "image_url": {"url": "https://example.com/raw.heic"}},
    {"type": "image_url", "image_url": {"url": "https://example.com/image"}},
    {"type": "image_url", "image_url": {"url": "https://example.com.au/image"}},
    {"type": "image_url", "image_url": {"url": "https://example.com/file.tiff"}}]}])");
  const Json& parts = body["contents"][0]["parts"];
  EXPECT_EQ(parts[0], Json::parse(R"({"fileData": {"mimeType": "image/png",
                                      "fileUri": "https://example.com/cats/tabby.PNG?size=large#top"}})"));
  EXPECT_EQ(parts[1]["fileData"]["mimeType"], "image/webp");
  EXPECT_EQ(parts[2]["fileData"]["mimeType"], "image/jpeg");
  EXPECT_EQ(parts[3]["fileData"]["mimeType"], "image/gif");
  EXPECT_EQ(parts[4]["fileData"]["mimeType"], "image/heic");
  EXPECT_EQ(parts[5]["fileData"]["mimeType"], "image/jpeg");  // no extension
  EXPECT_EQ(parts[6]["fileData"]["mimeType"], "image/jpeg");  // a dot in the host is no extension
  EXPECT_EQ(parts[7]["fileData"]["mimeType"], "image/jpeg");  // unknown extension
}

TEST(Messages, AnImageUrlGivenAsAStringIsAccepted) {
  const Json body = translated(
      R"([{"role": "user", "content": [{"type": "image_url", "image_url": "https://e.com/a.png"}]}])");
  EXPECT_EQ(body["contents"][0]["parts"][0]["fileData"]["fileUri"], "https://e.com/a.png");
}

TEST(Messages, AnImageUrlThatIsNeitherDataNorHttpIsRefused) {
  for (const char* url : {"ftp://example.com/a.png", "data:image/png,rawbytes", "data:;base64,AAAA",
                          "data:image/png;base64,", "file:///etc/passwd"}) {
    const auto e = refused_messages(R"([{"role": "user", "content": [{"type": "text", "text": "x"},
        {"type": "image_url", "image_url": {"url": ")" +
                                    std::string(url) + R"("}}]}])");
    EXPECT_EQ(e.param, "messages[0].content[1].image_url.url") << url;
  }
}

TEST(Messages, OtherPartTypesAreRefusedByPosition) {
  const auto e =
      refused_messages(R"([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yes?"},
    {"role": "user", "content": [{"type": "text", "text": "Listen"},
                                 {"type": "input_audio", "input_audio": {"data": "AAA", "format": "wav"}}]}])");
  EXPECT_EQ(e.param, "messages[2].content[1]");
  EXPECT_NE(e.message.find("input_audio"), std::string::npos) << e.message;
}

TEST(Messages, ATextPartWithoutTextIsRefused) {
  const auto e = refused_messages(R"([{"role": "user", "content": [{"type": "text", "text": 5}]}])");
  EXPECT_EQ(e.param, "messages[0].content[0].text");
}

TEST(Messages, ContentOfAnotherTypeIsRefused) {
  const auto e = refused_messages(R"([{"role": "user", "content": 42}])");
  EXPECT_EQ(e.param, "messages[0].content");
}

TEST(Messages, AnUnknownRoleIsRefused) {
  EXPECT_EQ(refused_messages(R"([{"role": "function", "name": "f", "content": "1"}])").param,
            "messages[0].role");
  EXPECT_EQ(refused_messages(R"([{"content": "no role"}])").param, "messages[0].role");
  EXPECT_EQ(refused_messages(R"(["just text"])").param, "messages[0]");
}

TEST(Messages, AssistantToolCallsBecomeFunctionCalls) {
  const Json body = translated(R"([
    {"role": "user", "content": "Weather in Paris and Lyon?"},
    {"role": "assistant", "content": "Checking.", "tool_calls": [
      {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
      {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Lyon\", \"days\": [1, 2]}"}},
      {"id": "call_3", "type": "function", "function": {"name": "list_cities", "arguments": ""}}]}])");
  EXPECT_EQ(body["contents"][1], Json::parse(R"({"role": "model", "parts": [
    {"text": "Checking."},
    {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
    {"functionCall": {"name": "get_weather", "args": {"city": "Lyon", "days": [1, 2]}}},
    {"functionCall": {"name": "list_cities", "args": {}}}]})"));
}

TEST(Messages, ToolCallArgumentsThatAreNotAJsonObjectAreRefused) {
  for (const char* args : {R"("{\"city\": \"Par")", R"("[1, 2]")", R"("42")", R"("null")", "17"}) {
    const auto e = refused_messages(R"([{"role": "user", "content": "x"},
      {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
        {"id": "call_2", "type": "function", "function": {"name": "g", "arguments": )" +
                                    std::string(args) + R"(}}]}])");
    EXPECT_EQ(e.param, "messages[1].tool_calls[1].function.arguments") << args;
  }
}

TEST(Messages, ToolCallArgumentsNestedTooDeepAreRefusedNotCrashed) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const auto e = refused_messages(R"([{"role": "assistant", "tool_calls": [
      {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{\"a\":)" +
                                  deep + R"(}"}}]}])");
  EXPECT_EQ(e.param, "messages[0].tool_calls[0].function.arguments");
}

TEST(Messages, AToolCallWithoutANameOrOfAnotherTypeIsRefused) {
  EXPECT_EQ(refused_messages(R"([{"role": "assistant", "tool_calls": [{"id": "c", "type": "function",
      "function": {"arguments": "{}"}}]}])")
                .param,
            "messages[0].tool_calls[0].function.name");
  EXPECT_EQ(refused_messages(R"([{"role": "assistant", "tool_calls": [{"id": "c", "type": "custom",
      "custom": {"name": "x", "input": "y"}}]}])")
                .param,
            "messages[0].tool_calls[0].type");
}

TEST(Messages, ToolResultsBecomeFunctionResponsesNamedByTheirCall) {
  const Json body = translated(R"([
    {"role": "user", "content": "Weather?"},
    {"role": "assistant", "tool_calls": [
      {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}},
      {"id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "call_b", "content": "{\"time\": \"14:05\"}"},
    {"role": "tool", "tool_call_id": "call_a", "content": "Sunny, 24 °C"}])");
  // Consecutive tool results merge into one user turn, in the client's order.
  EXPECT_EQ(body["contents"][2], Json::parse(R"({"role": "user", "parts": [
    {"functionResponse": {"name": "get_time", "response": {"time": "14:05"}}},
    {"functionResponse": {"name": "get_weather", "response": {"content": "Sunny, 24 °C"}}}]})"));
  EXPECT_EQ(body["contents"].size(), 3u);
}

TEST(Messages, AToolResultThatIsJsonButNotAnObjectIsWrapped) {
  const Json body = translated(R"([
    {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "[1, "}, {"type": "text", "text": "2]"}]}])");
  EXPECT_EQ(body["contents"][1]["parts"][0],
            Json::parse(R"({"functionResponse": {"name": "f", "response": {"content": "[1, 2]"}}})"));
}

TEST(Messages, AToolResultWithoutContentIsAnEmptyResponse) {
  const Json body = translated(R"([
    {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": null}])");
  EXPECT_EQ(body["contents"][1]["parts"][0]["functionResponse"]["response"],
            Json::parse(R"({"content": ""})"));
}

TEST(Messages, AnUnknownToolCallIdIsRefused) {
  const auto e = refused_messages(R"([
    {"role": "user", "content": "x"},
    {"role": "assistant", "tool_calls": [{"id": "call_a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "call_a", "content": "1"},
    {"role": "tool", "tool_call_id": "call_zzz", "content": "2"}])");
  EXPECT_EQ(e.param, "messages[3].tool_call_id");
  EXPECT_NE(e.message.find("call_zzz"), std::string::npos) << e.message;
}

TEST(Messages, AToolResultBeforeItsCallIsRefused) {
  // The name is looked up among EARLIER assistant tool calls only.
  const auto e = refused_messages(R"([
    {"role": "tool", "tool_call_id": "call_a", "content": "1"},
    {"role": "assistant", "tool_calls": [{"id": "call_a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}])");
  EXPECT_EQ(e.param, "messages[0].tool_call_id");
}

TEST(Messages, AToolResultWithoutAnIdIsRefused) {
  const auto e = refused_messages(R"([
    {"role": "assistant", "tool_calls": [{"id": "", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
    {"role": "tool", "content": "1"}])");
  EXPECT_EQ(e.param, "messages[1].tool_call_id");
}

TEST(Messages, ConsecutiveTurnsOfOneRoleMerge) {
  const Json body = translated(R"([
    {"role": "user", "content": "First."},
    {"role": "user", "content": [{"type": "text", "text": "Second."}]},
    {"role": "assistant", "content": "A"},
    {"role": "assistant", "content": "B"},
    {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c", "content": "{}"},
    {"role": "user", "content": "Thanks."}])");
  EXPECT_EQ(body["contents"], Json::parse(R"([
    {"role": "user", "parts": [{"text": "First."}, {"text": "Second."}]},
    {"role": "model", "parts": [{"text": "A"}, {"text": "B"}, {"functionCall": {"name": "f", "args": {}}}]},
    {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}, {"text": "Thanks."}]}])"));
}

TEST(Messages, MessageNamesAndOtherFieldsAreIgnored) {
  const Json body = translated(
      R"([{"role": "user", "name": "alice", "content": "Hi", "cache_control": {"type": "ephemeral"}}])");
  EXPECT_EQ(body["contents"], Json::parse(R"([{"role": "user", "parts": [{"text": "Hi"}]}])"));
}

}  // namespace
}  // namespace gemini_test
