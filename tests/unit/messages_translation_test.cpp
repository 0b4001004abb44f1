// Anthropic's Messages API translated to and from the chat form
// (core/src/messages): request members and content blocks to chat members,
// the refusals, a chat completion to a Message, chat chunks to the event
// stream.
#include "messages/message_events.h"
#include "messages/message_object.h"
#include "messages/messages_door.h"
#include "messages/messages_request.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace modelgw::messages {
namespace {

using nlohmann::json;

constexpr const char* kMsgRequestId = "req_abcdefghijklmnopqrstuvwx";

json body_with(json members) {
  json body = {{"model", "claude-alias"},
               {"max_tokens", 100},
               {"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}};
  for (auto& [k, v] : members.items()) body[k] = v;
  return body;
}

json chat_of(const json& body, MessagesOptions options = {}) {
  auto r = translate_messages(body, options);
  if (auto* e = std::get_if<errors::ApiError>(&r)) {
    ADD_FAILURE() << e->code << " " << e->param << ": " << e->message;
    return {};
  }
  return std::get<TranslatedMessages>(std::move(r)).chat;
}

errors::ApiError refusal_of(const json& body, MessagesOptions options = {}) {
  auto r = translate_messages(body, options);
  if (auto* e = std::get_if<errors::ApiError>(&r)) return *e;
  ADD_FAILURE() << "accepted " << body.dump();
  return {};
}

TEST(MessagesRequestTest, TopLevelMembersMapToTheirChatCounterparts) {
  auto r = translate_messages(body_with({{"system", "be brief"},
                                         {"temperature", 0.5},
                                         {"top_p", 0.9},
                                         {"top_k", 40},
                                         {"stop_sequences", {"END", "STOP"}},
                                         {"metadata", {{"user_id", "u-1"}}},
                                         {"stream", true},
                                         {"service_tier", "auto"}}));
  ASSERT_TRUE(std::holds_alternative<TranslatedMessages>(r));
  const auto& t = std::get<TranslatedMessages>(r);
  EXPECT_EQ(t.alias, "claude-alias");
  EXPECT_TRUE(t.stream);
  const json& chat = t.chat;
  EXPECT_EQ(chat["model"], "claude-alias");
  EXPECT_EQ(chat["max_tokens"], 100);
  EXPECT_EQ(chat["messages"], json::array({{{"role", "system"}, {"content", "be brief"}},
                                           {{"role", "user"}, {"content", "hi"}}}));
  EXPECT_EQ(chat["temperature"], 0.5);
  EXPECT_EQ(chat["top_p"], 0.9);
  EXPECT_FALSE(chat.contains("top_k")) << "a sampling hint the chat form has no member for";
  EXPECT_EQ(chat["stop"], json({"END", "STOP"}));
  EXPECT_EQ(chat["user"], "u-1");
  EXPECT_EQ(chat["stream"], true);
  EXPECT_EQ(chat["stream_options"], json({{"include_usage", true}})) << "usage comes at the end";
  EXPECT_FALSE(chat.contains("service_tier")) << "Anthropic's tiers are not chat's";
}

TEST(MessagesRequestTest, SystemBlocksAreJoinedIntoOneSystemMessage) {
  const json chat = chat_of(body_with(
      {{"system", json::array({{{"type", "text"}, {"text", "a"}, {"cache_control", {{"type", "ephemeral"}}}},
                               {{"type", "text"}, {"text", "b"}}})}}));
  EXPECT_EQ(chat["messages"][0], json({{"role", "system"}, {"content", "a\nb"}}));
  EXPECT_EQ(refusal_of(body_with({{"system", json::array({{{"type", "image"}}})}})).param, "system[0].type");
}

TEST(MessagesRequestTest, ImagesAndDocumentsBecomeChatParts) {
  const json content = json::array(
      {{{"type", "text"}, {"text", "look"}},
       {{"type", "image"}, {"source", {{"type", "base64"}, {"media_type", "image/png"}, {"data", "AAAA"}}}},
       {{"type", "image"}, {"source", {{"type", "url"}, {"url", "https://x.test/a.png"}}}},
       {{"type", "document"},
        {"title", "report.pdf"},
        {"source", {{"type", "base64"}, {"media_type", "application/pdf"}, {"data", "JVBE"}}}},
       {{"type", "document"},
        {"source", {{"type", "text"}, {"media_type", "text/plain"}, {"data", "plain"}}}},
       {{"type", "document"},
        {"source",
         {{"type", "content"}, {"content", json::array({{{"type", "text"}, {"text", "inner"}}})}}}}});
  const json chat =
      chat_of(body_with({{"messages", json::array({{{"role", "user"}, {"content", content}}})}}));
  const json& parts = chat["messages"][0]["content"];
  ASSERT_EQ(parts.size(), 6u) << parts.dump();
  EXPECT_EQ(parts[0], json({{"type", "text"}, {"text", "look"}}));
  EXPECT_EQ(parts[1]["image_url"]["url"], "data:image/png;base64,AAAA");
  EXPECT_EQ(parts[2]["image_url"]["url"], "https://x.test/a.png");
  EXPECT_EQ(
      parts[3],
      json({{"type", "file"},
            {"file", {{"filename", "report.pdf"}, {"file_data", "data:application/pdf;base64,JVBE"}}}}));
  EXPECT_EQ(parts[4], json({{"type", "text"}, {"text", "plain"}}));
  EXPECT_EQ(parts[5], json({{"type", "text"}, {"text", "inner"}}));
}

TEST(MessagesRequestTest, ToolUseAndToolResultBecomeToolCallsAndToolMessages) {
  const json messages = json::array(
      {{{"role", "user"}, {"content", "weather?"}},
       {{"role", "assistant"},
        {"content",
         json::array(
             {{{"type", "thinking"}, {"thinking", "hmm"}, {"signature", "sig"}},
              {{"type", "text"}, {"text", "Checking."}},
              {{"type", "tool_use"},
               {"id", "toolu_1"},
               {"name", "get_weather"},
               {"input", {{"city", "Paris"}}}},
              {{"type", "tool_use"}, {"id", "toolu_2"}, {"name", "now"}, {"input", json::object()}}})}},
       {{"role", "user"},
        {"content",
         json::array(
             {{{"type", "tool_result"}, {"tool_use_id", "toolu_1"}, {"content", "18C"}},
              {{"type", "tool_result"},
               {"tool_use_id", "toolu_2"},
               {"is_error", true},
               {"content", json::array({{{"type", "text"}, {"text", "clock down"}},
                                        {{"type", "image"},
                                         {"source", {{"type", "url"}, {"url", "https://x.test/c.png"}}}}})}},
              {{"type", "text"}, {"text", "thanks"}}})}}});
  const json chat = chat_of(body_with({{"messages", messages}}));
  const json& m = chat["messages"];
  ASSERT_EQ(m.size(), 5u) << m.dump();
  EXPECT_EQ(m[1]["role"], "assistant");
  EXPECT_EQ(m[1]["content"], "Checking.") << "thinking is dropped in the chat translation";
  ASSERT_EQ(m[1]["tool_calls"].size(), 2u);
  EXPECT_EQ(m[1]["tool_calls"][0],
            json({{"id", "toolu_1"},
                  {"type", "function"},
                  {"function", {{"name", "get_weather"}, {"arguments", R"({"city":"Paris"})"}}}}));
  EXPECT_EQ(m[2], json({{"role", "tool"}, {"tool_call_id", "toolu_1"}, {"content", "18C"}}));
  EXPECT_EQ(m[3], json({{"role", "tool"}, {"tool_call_id", "toolu_2"}, {"content", "Error: clock down"}}));
  // The rest of the turn, and the image a tool message cannot carry, follow.
  EXPECT_EQ(m[4]["role"], "user");
  ASSERT_EQ(m[4]["content"].size(), 2u);
  EXPECT_EQ(m[4]["content"][0]["text"], "thanks");
  EXPECT_EQ(m[4]["content"][1]["image_url"]["url"], "https://x.test/c.png");
}

TEST(MessagesRequestTest, AnAssistantTurnOfOnlyToolCallsHasNullContent) {
  const json chat = chat_of(body_with(
      {{"messages",
        json::array(
            {{{"role", "user"}, {"content", "x"}},
             {{"role", "assistant"},
              {"content",
               json::array({{{"type", "tool_use"}, {"id", "t"}, {"name", "f"}, {"input", json::object()}}})}},
             {{"role", "user"},
              {"content", json::array({{{"type", "tool_result"}, {"tool_use_id", "t"}}})}}})}}));
  EXPECT_TRUE(chat["messages"][1]["content"].is_null());
  EXPECT_EQ(chat["messages"][2], json({{"role", "tool"}, {"tool_call_id", "t"}, {"content", ""}}));
}

TEST(MessagesRequestTest, ToolsAndToolChoice) {
  const json tools =
      json::array({{{"name", "get_weather"},
                    {"description", "the weather"},
                    {"input_schema", {{"type", "object"}}},
                    {"cache_control", {{"type", "ephemeral"}}}},
                   {{"type", "custom"}, {"name", "now"}, {"input_schema", {{"type", "object"}}}}});
  const json chat = chat_of(
      body_with({{"tools", tools},
                 {"tool_choice", {{"type", "tool"}, {"name", "now"}, {"disable_parallel_tool_use", true}}}}));
  ASSERT_EQ(chat["tools"].size(), 2u);
  EXPECT_EQ(chat["tools"][0], json({{"type", "function"},
                                    {"function",
                                     {{"name", "get_weather"},
                                      {"description", "the weather"},
                                      {"parameters", {{"type", "object"}}}}}}));
  EXPECT_EQ(chat["tool_choice"], json({{"type", "function"}, {"function", {{"name", "now"}}}}));
  EXPECT_EQ(chat["parallel_tool_calls"], false);
  EXPECT_EQ(chat_of(body_with({{"tools", tools}, {"tool_choice", {{"type", "auto"}}}}))["tool_choice"],
            "auto");
  EXPECT_EQ(chat_of(body_with({{"tools", tools}, {"tool_choice", {{"type", "any"}}}}))["tool_choice"],
            "required");
  EXPECT_EQ(chat_of(body_with({{"tools", tools}, {"tool_choice", {{"type", "none"}}}}))["tool_choice"],
            "none");
  EXPECT_FALSE(chat_of(body_with({{"tool_choice", {{"type", "auto"}, {"disable_parallel_tool_use", true}}}}))
                   .contains("parallel_tool_calls"))
      << "chat takes parallel_tool_calls with tools only";
}

TEST(MessagesRequestTest, AnthropicsOwnToolsAreRefusedNamingTheTool) {
  const auto e = refusal_of(
      body_with({{"tools", json::array({{{"name", "f"}, {"input_schema", json::object()}},
                                        {{"type", "web_search_20250305"}, {"name", "web_search"}}})}}));
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.code, "unsupported_parameter");
  EXPECT_EQ(e.param, "tools[1]");
  EXPECT_NE(e.message.find("web_search_20250305"), std::string::npos);
  EXPECT_EQ(refusal_of(body_with({{"tools", json::array({{{"name", "f"}}})}})).param,
            "tools[0].input_schema");
  EXPECT_EQ(refusal_of(body_with({{"mcp_servers", json::array()}})).param, "mcp_servers");
}

TEST(MessagesRequestTest, ThinkingBudgetsBecomeReasoningEffort) {
  EXPECT_EQ(
      chat_of(body_with({{"max_tokens", 50000},
                         {"thinking", {{"type", "enabled"}, {"budget_tokens", 1024}}}}))["reasoning_effort"],
      "low");
  EXPECT_EQ(
      chat_of(body_with({{"max_tokens", 50000},
                         {"thinking", {{"type", "enabled"}, {"budget_tokens", 8000}}}}))["reasoning_effort"],
      "medium");
  EXPECT_EQ(
      chat_of(body_with({{"max_tokens", 50000},
                         {"thinking", {{"type", "enabled"}, {"budget_tokens", 32000}}}}))["reasoning_effort"],
      "high");
  EXPECT_FALSE(chat_of(body_with({{"thinking", {{"type", "disabled"}}}})).contains("reasoning_effort"));
  EXPECT_EQ(refusal_of(body_with({{"thinking", {{"type", "enabled"}, {"budget_tokens", 500}}}})).param,
            "thinking.budget_tokens");
  EXPECT_EQ(refusal_of(body_with({{"max_tokens", 2000},
                                  {"thinking", {{"type", "enabled"}, {"budget_tokens", 2000}}}}))
                .param,
            "max_tokens")
      << "Anthropic wants max_tokens above the budget";
  EXPECT_EQ(refusal_of(body_with({{"thinking", {{"type", "enabled"}}}})).param, "thinking.budget_tokens");
}

TEST(MessagesRequestTest, OutputFormatBecomesAJsonSchemaResponseFormat) {
  const json chat = chat_of(body_with(
      {{"output_config",
        {{"effort", "high"}, {"format", {{"type", "json_schema"}, {"schema", {{"type", "object"}}}}}}}}));
  EXPECT_EQ(chat["reasoning_effort"], "high");
  EXPECT_EQ(chat["response_format"]["type"], "json_schema");
  EXPECT_EQ(chat["response_format"]["json_schema"]["schema"], json({{"type", "object"}}));
}

TEST(MessagesRequestTest, RequiredMembersAndTheirCodes) {
  json no_max = body_with({});
  no_max.erase("max_tokens");
  auto e = refusal_of(no_max);
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.code, "missing_required_field");
  EXPECT_EQ(e.param, "max_tokens");
  EXPECT_FALSE(chat_of(no_max, MessagesOptions{true}).contains("max_tokens")) << "count_tokens needs none";
  json no_model = body_with({});
  no_model.erase("model");
  EXPECT_EQ(refusal_of(no_model).param, "model");
  EXPECT_EQ(refusal_of(body_with({{"max_tokens", 0}})).param, "max_tokens");
  EXPECT_EQ(refusal_of(body_with({{"max_tokens", "10"}})).code, "invalid_parameter");
  EXPECT_EQ(refusal_of(body_with({{"messages", json::array()}})).param, "messages");
  json no_messages = body_with({});
  no_messages.erase("messages");
  EXPECT_EQ(refusal_of(no_messages).code, "missing_required_field");
}

TEST(MessagesRequestTest, UnknownMembersAreRefusedAsAnthropicRefusesThem) {
  auto e = refusal_of(body_with({{"frequency_penalty", 1}}));
  EXPECT_EQ(e.code, "unknown_parameter");
  EXPECT_EQ(e.param, "frequency_penalty");
  EXPECT_NE(e.message.find("Extra inputs are not permitted"), std::string::npos);
  EXPECT_EQ(refusal_of(body_with({{"metadata", {{"session", "x"}}}})).param, "metadata.session");
  const std::string long_name(5000, 'k');
  EXPECT_LT(refusal_of(body_with({{long_name, 1}})).message.size(), 400u)
      << "a client's name is quoted short";
}

TEST(MessagesRequestTest, MessagesAreCheckedWhereTheyAreCheap) {
  const auto with_messages = [](json m) { return body_with({{"messages", std::move(m)}}); };
  EXPECT_EQ(refusal_of(with_messages(json::array({{{"role", "system"}, {"content", "x"}}}))).param,
            "messages[0].role");
  EXPECT_EQ(refusal_of(with_messages(json::array({{{"role", "user"}}}))).param, "messages[0].content");
  EXPECT_EQ(refusal_of(with_messages(json::array({{{"role", "user"}, {"content", json::array()}}}))).param,
            "messages[0].content");
  EXPECT_EQ(refusal_of(with_messages(json::array({{{"role", "user"}, {"content", 5}}}))).param,
            "messages[0].content");
  EXPECT_EQ(
      refusal_of(with_messages(json::array({{{"role", "user"}, {"content", "x"}, {"name", "n"}}}))).param,
      "messages[0].name");
  const json bad_source = json::array(
      {{{"role", "user"}, {"content", "a"}},
       {{"role", "assistant"}, {"content", "b"}},
       {{"role", "user"},
        {"content",
         json::array({{{"type", "image"},
                       {"source", {{"type", "base64"}, {"media_type", "image/tiff"}, {"data", "x"}}}}})}}});
  EXPECT_EQ(refusal_of(with_messages(bad_source)).param, "messages[2].content[0].source.media_type");
  const json no_source = json::array({{{"role", "user"}, {"content", json::array({{{"type", "image"}}})}}});
  EXPECT_EQ(refusal_of(with_messages(no_source)).param, "messages[0].content[0].source");
  const json user_tool_use = json::array(
      {{{"role", "user"},
        {"content",
         json::array({{{"type", "tool_use"}, {"id", "t"}, {"name", "f"}, {"input", json::object()}}})}}});
  EXPECT_EQ(refusal_of(with_messages(user_tool_use)).param, "messages[0].content[0].type");
  const json bad_input = json::array(
      {{{"role", "assistant"},
        {"content", json::array({{{"type", "tool_use"}, {"id", "t"}, {"name", "f"}, {"input", "x"}}})}}});
  EXPECT_EQ(refusal_of(with_messages(bad_input)).param, "messages[0].content[0].input");
  const json file_image = json::array(
      {{{"role", "user"},
        {"content", json::array({{{"type", "image"}, {"source", {{"type", "file"}, {"file_id", "f"}}}}})}}});
  EXPECT_EQ(refusal_of(with_messages(file_image)).code, "unsupported_parameter");
  // A tool_result without its tool_use is the model's problem, not a refusal.
  const json orphan = json::array(
      {{{"role", "user"},
        {"content",
         json::array({{{"type", "tool_result"}, {"tool_use_id", "nowhere"}, {"content", "x"}}})}}});
  EXPECT_EQ(chat_of(with_messages(orphan))["messages"][0]["tool_call_id"], "nowhere");
  EXPECT_EQ(refusal_of(body_with({{"temperature", 1.5}})).param, "temperature")
      << "Anthropic's range is 0 to 1";
}

TEST(MessagesRequestTest, CountTokensTakesTheSameBodyWithoutAStream) {
  json body = body_with({{"stream", true}});
  body.erase("max_tokens");
  auto r = count_tokens_request(body);
  ASSERT_TRUE(std::holds_alternative<json>(r));
  const json& chat = std::get<json>(r);
  EXPECT_FALSE(chat.contains("stream"));
  EXPECT_FALSE(chat.contains("stream_options"));
  EXPECT_EQ(chat["messages"].size(), 1u);
  auto refused = count_tokens_request(
      body_with({{"tools", json::array({{{"type", "bash_20250124"}, {"name", "bash"}}})}}));
  ASSERT_TRUE(std::holds_alternative<errors::ApiError>(refused));
  EXPECT_EQ(std::get<errors::ApiError>(refused).param, "tools[0]");
}

TEST(MessagesDoorTest, NamesChatParametersByTheirMessagesNames) {
  const MessagesDoor door;
  EXPECT_EQ(door.operation(), "messages");
  EXPECT_EQ(door.output_limit_member(), "max_tokens");
  ASSERT_EQ(door.forwarded_headers().size(), 1u);
  EXPECT_EQ(door.forwarded_headers()[0], "anthropic-beta");
  EXPECT_EQ(door.param_name("max_tokens"), "max_tokens");
  EXPECT_EQ(door.param_name("max_completion_tokens"), "max_tokens");
  EXPECT_EQ(door.param_name("messages[3].content"), "messages");
  EXPECT_EQ(door.param_name("stop"), "stop_sequences");
  EXPECT_EQ(door.param_name("user"), "metadata.user_id");
  EXPECT_EQ(door.param_name("tools[0].function.name"), "tools");
  EXPECT_EQ(door.param_name("reasoning_effort"), "thinking");
  EXPECT_EQ(door.param_name("top_k"), "top_k");
}

// ---- the whole answer ----

json message_of(const json& completion) {
  const auto body = whole_message(completion.dump(), "claude-alias", kMsgRequestId);
  EXPECT_TRUE(body.has_value());
  return body ? json::parse(*body) : json();
}

TEST(MessageObjectTest, AChatCompletionBecomesAMessage) {
  const json m = message_of(
      {{"id", "chatcmpl-1"},
       {"object", "chat.completion"},
       {"model", "claude-alias"},
       {"choices", json::array({{{"index", 0},
                                 {"message",
                                  {{"role", "assistant"},
                                   {"content", "Hello"},
                                   {"reasoning_content", "think"},
                                   {"tool_calls",
                                    json::array({{{"id", "call_1"},
                                                  {"type", "function"},
                                                  {"function", {{"name", "f"}, {"arguments", R"({"a":1})"}}}},
                                                 {{"type", "function"},
                                                  {"function", {{"name", "g"}, {"arguments", "{oops"}}}}})}}},
                                 {"finish_reason", "tool_calls"}}})},
       {"usage",
        {{"prompt_tokens", 100},
         {"completion_tokens", 20},
         {"prompt_tokens_details", {{"cached_tokens", 30}}}}}});
  EXPECT_EQ(m["id"], "msg_abcdefghijklmnopqrstuvwx");
  EXPECT_EQ(m["type"], "message");
  EXPECT_EQ(m["role"], "assistant");
  EXPECT_EQ(m["model"], "claude-alias");
  EXPECT_EQ(m["request_id"], kMsgRequestId);
  EXPECT_EQ(m["stop_reason"], "tool_use");
  EXPECT_TRUE(m["stop_sequence"].is_null());
  ASSERT_EQ(m["content"].size(), 4u) << m.dump();
  EXPECT_EQ(m["content"][0], json({{"type", "thinking"}, {"thinking", "think"}, {"signature", ""}}));
  EXPECT_EQ(m["content"][1], json({{"type", "text"}, {"text", "Hello"}}));
  EXPECT_EQ(m["content"][2],
            json({{"type", "tool_use"}, {"id", "call_1"}, {"name", "f"}, {"input", {{"a", 1}}}}));
  EXPECT_EQ(m["content"][3]["input"], json::object()) << "unparsable arguments become {}";
  EXPECT_EQ(m["content"][3]["id"], "toolu_abcdefghijklmnopqrstuvwx_1") << "a call without an id gets one";
  EXPECT_EQ(m["usage"], json({{"input_tokens", 70},
                              {"cache_creation_input_tokens", 0},
                              {"cache_read_input_tokens", 30},
                              {"output_tokens", 20}}))
      << "input_tokens leaves out cached tokens, as Anthropic's does";
}

TEST(MessageObjectTest, FinishReasonsMapToStopReasons) {
  EXPECT_EQ(stop_reason_for("stop"), "end_turn");
  EXPECT_EQ(stop_reason_for("length"), "max_tokens");
  EXPECT_EQ(stop_reason_for("tool_calls"), "tool_use");
  EXPECT_EQ(stop_reason_for("content_filter"), "refusal");
  EXPECT_EQ(stop_reason_for(""), "end_turn");
}

TEST(MessageObjectTest, WhatIsNotAChatCompletionIsRefused) {
  std::size_t unparsed = 7;
  EXPECT_FALSE(whole_message("not json", "a", kMsgRequestId, &unparsed));
  EXPECT_FALSE(whole_message(R"({"choices":[]})", "a", kMsgRequestId));
  EXPECT_FALSE(whole_message(R"({"choices":[{"message":3}]})", "a", kMsgRequestId));
  ASSERT_TRUE(whole_message(
      R"({"choices":[{"message":{"content":null,"tool_calls":[{"function":{"name":"f","arguments":"[1]"}}]}}]})",
      "a", kMsgRequestId, &unparsed));
  EXPECT_EQ(unparsed, 1u) << "the caller logs what became {}";
  EXPECT_EQ(anthropic_usage(MessageUsage{10, 2, 3, 4})["input_tokens"], 3);
  EXPECT_EQ(anthropic_usage(MessageUsage{1, 2, 3, 4})["input_tokens"], 0) << "never negative";
  const auto extreme = std::numeric_limits<std::int64_t>::max();
  const json odd = anthropic_usage(MessageUsage{-5, -1, extreme, extreme});
  EXPECT_EQ(odd["input_tokens"], 0) << "a plugin's odd counts neither overflow nor go below 0";
  EXPECT_EQ(odd["output_tokens"], 0);
}

// ---- the stream ----

std::vector<std::pair<std::string, json>> stream_events(const std::string& sse) {
  std::vector<std::pair<std::string, json>> out;
  std::size_t at = 0;
  for (int guard = 0; guard < 1000 && at < sse.size(); ++guard) {
    const auto end = sse.find("\n\n", at);
    if (end == std::string::npos) break;
    const std::string block = sse.substr(at, end - at);
    at = end + 2;
    const auto nl = block.find('\n');
    EXPECT_EQ(block.rfind("event: ", 0), 0u) << block;
    EXPECT_EQ(block.compare(nl + 1, 6, "data: "), 0) << block;
    out.emplace_back(block.substr(7, nl - 7), json::parse(block.substr(nl + 7)));
  }
  EXPECT_EQ(at, sse.size()) << "every event ends with a blank line";
  return out;
}

std::string chunk_json(json delta, json finish = nullptr) {
  return json{
      {"id", "c"},
      {"object", "chat.completion.chunk"},
      {"choices",
       json::array({{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", std::move(finish)}}})}}
      .dump();
}

std::vector<std::string> types_of(const std::vector<std::pair<std::string, json>>& events) {
  std::vector<std::string> types;
  for (const auto& [type, data] : events) {
    EXPECT_EQ(data["type"], type) << "the event's name is its data's type";
    types.push_back(type);
  }
  return types;
}

TEST(MessageEventsTest, ThinkingThenTextThenUsage) {
  MessageEventWriter w("claude-alias", kMsgRequestId);
  std::string out;
  ASSERT_TRUE(w.chunk(chunk_json({{"role", "assistant"}}), out));
  ASSERT_TRUE(w.chunk(chunk_json({{"reasoning_content", "let me"}}), out));
  ASSERT_TRUE(w.chunk(chunk_json({{"reasoning_content", " think"}}), out));
  ASSERT_TRUE(w.chunk(chunk_json({{"content", "Hel"}}), out));
  ASSERT_TRUE(w.chunk(chunk_json({{"content", "lo"}}, "stop"), out));
  ASSERT_TRUE(w.chunk(R"({"id":"c","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4}})", out));
  w.finish(MessageUsage{12, 5, 2, 1}, out);
  const auto events = stream_events(out);
  EXPECT_EQ(types_of(events),
            (std::vector<std::string>{"message_start", "content_block_start", "content_block_delta",
                                      "content_block_delta", "content_block_stop", "content_block_start",
                                      "content_block_delta", "content_block_delta", "content_block_stop",
                                      "message_delta", "message_stop"}));
  const json& start = events[0].second;
  EXPECT_EQ(start["message"]["id"], "msg_abcdefghijklmnopqrstuvwx");
  EXPECT_EQ(start["message"]["model"], "claude-alias");
  EXPECT_EQ(start["message"]["content"], json::array());
  EXPECT_TRUE(start["message"]["stop_reason"].is_null());
  EXPECT_EQ(start["request_id"], kMsgRequestId);
  EXPECT_EQ(events[1].second["index"], 0);
  EXPECT_EQ(events[1].second["content_block"]["type"], "thinking");
  EXPECT_EQ(events[2].second["delta"], json({{"type", "thinking_delta"}, {"thinking", "let me"}}));
  EXPECT_EQ(events[5].second["index"], 1);
  EXPECT_EQ(events[5].second["content_block"], json({{"type", "text"}, {"text", ""}}));
  EXPECT_EQ(events[7].second["delta"], json({{"type", "text_delta"}, {"text", "lo"}}));
  EXPECT_EQ(events[8].second["index"], 1);
  const json& delta = events[9].second;
  EXPECT_EQ(delta["delta"], json({{"stop_reason", "end_turn"}, {"stop_sequence", nullptr}}));
  EXPECT_EQ(delta["usage"], json({{"input_tokens", 9},
                                  {"cache_creation_input_tokens", 1},
                                  {"cache_read_input_tokens", 2},
                                  {"output_tokens", 5}}))
      << "the chain's usage wins over a chunk's";
}

TEST(MessageEventsTest, ToolCallsStreamAsTwoToolUseBlocks) {
  MessageEventWriter w("a", kMsgRequestId);
  std::string out;
  w.chunk(chunk_json({{"content", "Let me check."}}), out);
  w.chunk(chunk_json({{"tool_calls", json::array({{{"index", 0},
                                                   {"id", "call_a"},
                                                   {"function", {{"name", "f"}, {"arguments", ""}}}}})}}),
          out);
  w.chunk(
      chunk_json({{"tool_calls", json::array({{{"index", 0}, {"function", {{"arguments", R"({"x":)"}}}}})}}),
      out);
  w.chunk(chunk_json({{"tool_calls", json::array({{{"index", 0}, {"function", {{"arguments", "1}"}}}}})}}),
          out);
  w.chunk(chunk_json({{"tool_calls", json::array({{{"index", 1},
                                                   {"id", "call_b"},
                                                   {"function", {{"name", "g"}, {"arguments", "{}"}}}}})}}),
          out);
  w.chunk(chunk_json(json::object(), "tool_calls"), out);
  w.finish(std::nullopt, out);
  const auto events = stream_events(out);
  std::vector<json> starts;
  std::string args;
  for (const auto& [type, data] : events) {
    if (type == "content_block_start") starts.push_back(data);
    if (type == "content_block_delta" && data["delta"]["type"] == "input_json_delta" && data["index"] == 1)
      args += data["delta"]["partial_json"].get<std::string>();
  }
  ASSERT_EQ(starts.size(), 3u);
  EXPECT_EQ(starts[1]["index"], 1);
  EXPECT_EQ(starts[1]["content_block"],
            json({{"type", "tool_use"}, {"id", "call_a"}, {"name", "f"}, {"input", json::object()}}));
  EXPECT_EQ(starts[2]["index"], 2);
  EXPECT_EQ(starts[2]["content_block"]["id"], "call_b");
  EXPECT_EQ(args, R"({"x":1})");
  // One block open at a time: each start follows the previous block's stop.
  int open = 0;
  for (const auto& [type, data] : events) {
    if (type == "content_block_start") {
      EXPECT_EQ(++open, 1);
    }
    if (type == "content_block_stop") {
      EXPECT_EQ(--open, 0);
    }
  }
  EXPECT_EQ(events[events.size() - 2].second["delta"]["stop_reason"], "tool_use");
  EXPECT_EQ(w.dropped_arguments(), 0u);
}

TEST(MessageEventsTest, LateArgumentsOfAStoppedCallAreCountedNotReopened) {
  MessageEventWriter w("a", kMsgRequestId);
  std::string out;
  w.chunk(
      chunk_json({{"tool_calls", json::array({{{"index", 0}, {"id", "a"}, {"function", {{"name", "f"}}}}})}}),
      out);
  w.chunk(
      chunk_json({{"tool_calls", json::array({{{"index", 1}, {"id", "b"}, {"function", {{"name", "g"}}}}})}}),
      out);
  w.chunk(chunk_json({{"tool_calls", json::array({{{"index", 0}, {"function", {{"arguments", "{}"}}}}})}}),
          out);
  w.finish(std::nullopt, out);
  std::size_t starts = 0;
  for (const auto& [type, data] : stream_events(out)) starts += type == "content_block_start" ? 1 : 0;
  EXPECT_EQ(starts, 2u);
  EXPECT_EQ(w.dropped_arguments(), 1u);
}

TEST(MessageEventsTest, AFailureMidStreamEndsWithAnErrorEvent) {
  MessageEventWriter w("a", kMsgRequestId);
  std::string out;
  w.chunk(chunk_json({{"content", "par"}}), out);
  w.fail(errors::ApiError{502, "provider_failed", "the provider cut the stream", {}}, out);
  w.finish(std::nullopt, out);  // nothing after the error
  w.chunk(chunk_json({{"content", "more"}}), out);
  const auto events = stream_events(out);
  ASSERT_EQ(events.back().first, "error");
  const json& e = events.back().second;
  EXPECT_EQ(e["type"], "error");
  EXPECT_EQ(e["error"]["type"], "api_error");
  EXPECT_EQ(e["error"]["code"], "provider_failed");
  EXPECT_EQ(e["request_id"], kMsgRequestId);
  for (const auto& [type, data] : events) EXPECT_NE(type, "message_stop");
}

TEST(MessageEventsTest, AnEmptyStreamStillStartsAndStops) {
  MessageEventWriter w("a", kMsgRequestId);
  std::string out;
  EXPECT_FALSE(w.chunk("[1]", out));
  w.finish(std::nullopt, out);
  EXPECT_EQ(types_of(stream_events(out)),
            (std::vector<std::string>{"message_start", "message_delta", "message_stop"}));
}

}  // namespace
}  // namespace modelgw::messages
