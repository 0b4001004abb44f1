// The Responses API's translation to and from the chat form
// (core/src/responses): request members to chat members, a chat completion
// to a response object, chat chunks to the typed event stream.
#include "responses/response_events.h"
#include "responses/response_object.h"
#include "responses/responses_door.h"
#include "responses/responses_request.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace modelgw::responses {
namespace {

using nlohmann::json;

constexpr const char* kRequestId = "req_abcdefghijklmnopqrstuvwx";

TranslatedRequest translated(const json& body) {
  auto r = translate_request(body);
  if (auto* e = std::get_if<errors::ApiError>(&r)) {
    ADD_FAILURE() << e->code << " " << e->param << ": " << e->message;
    return {};
  }
  return std::get<TranslatedRequest>(std::move(r));
}

errors::ApiError refused(const json& body) {
  auto r = translate_request(body);
  if (auto* e = std::get_if<errors::ApiError>(&r)) return *e;
  ADD_FAILURE() << "accepted " << body.dump();
  return {};
}

TEST(ResponsesRequestTest, MembersMapToTheirChatCounterparts) {
  const auto t =
      translated({{"model", "m"},
                  {"input", "hi"},
                  {"instructions", "sys"},
                  {"max_output_tokens", 10},
                  {"reasoning", {{"effort", "low"}}},
                  {"text",
                   {{"format", {{"type", "json_schema"}, {"name", "n"}, {"schema", json::object()}}},
                    {"verbosity", "low"}}},
                  {"tool_choice", {{"type", "function"}, {"name", "f"}}},
                  {"user", "u"},
                  {"stream", true}});
  EXPECT_EQ(t.chat["messages"],
            json::array({{{"role", "system"}, {"content", "sys"}}, {{"role", "user"}, {"content", "hi"}}}));
  EXPECT_EQ(t.chat["max_tokens"], 10);
  EXPECT_EQ(t.chat["reasoning_effort"], "low");
  EXPECT_EQ(t.chat["response_format"]["json_schema"]["name"], "n");
  EXPECT_FALSE(t.chat.contains("verbosity")) << "a hint no chat vendor has a member for";
  EXPECT_EQ(t.chat["tool_choice"], json({{"type", "function"}, {"function", {{"name", "f"}}}}));
  EXPECT_EQ(t.chat["user"], "u");
  EXPECT_EQ(t.chat["stream"], true);
  EXPECT_EQ(t.echo["instructions"], "sys");
  EXPECT_EQ(t.echo["max_output_tokens"], 10);
  EXPECT_EQ(t.echo["store"], false) << "nothing is stored, so the response says so";
}

// The echo holds what the request gave; read over the API's defaults it is
// every member a response repeats, as OpenAI's response objects repeat them.
TEST(ResponsesRequestTest, TheEchoIsTheRequestsOwnValuesOverTheApisDefaults) {
  const auto plain = translate_request(json{{"model", "m"}, {"input", "x"}}, TranslateOptions{false});
  ASSERT_TRUE(std::holds_alternative<TranslatedRequest>(plain));
  const json& echo = std::get<TranslatedRequest>(plain).echo;
  EXPECT_EQ(echo, json({{"store", false}})) << "no copy of the defaults per request";
  json expected = echo_defaults();
  expected["store"] = false;
  EXPECT_EQ(full_echo(echo), expected);

  const auto given = translate_request(json{{"model", "m"},
                                            {"input", "x"},
                                            {"temperature", 0.5},
                                            {"metadata", {{"k", "v"}}},
                                            {"reasoning", {{"effort", "high"}}}},
                                       TranslateOptions{false});
  ASSERT_TRUE(std::holds_alternative<TranslatedRequest>(given));
  const json full = full_echo(std::get<TranslatedRequest>(given).echo);
  EXPECT_EQ(full["temperature"], 0.5);
  EXPECT_EQ(full["metadata"], json({{"k", "v"}}));
  EXPECT_EQ(full["reasoning"], json({{"effort", "high"}, {"summary", nullptr}}))
      << "the default's other member stays";
  EXPECT_EQ(full["top_p"], 1.0);
  EXPECT_EQ(full["truncation"], "disabled");
  EXPECT_EQ(full.size(), echo_defaults().size());
}

TEST(ResponsesRequestTest, StoreIsOpenAIsDefaultWhereResponsesAreKept) {
  auto kept = translate_request(json{{"model", "m"}, {"input", "x"}, {"previous_response_id", "resp_1"}},
                                TranslateOptions{true});
  ASSERT_TRUE(std::holds_alternative<TranslatedRequest>(kept));
  const auto& t = std::get<TranslatedRequest>(kept);
  EXPECT_TRUE(t.store);
  EXPECT_EQ(t.echo["store"], true);
  EXPECT_EQ(t.previous_response_id, "resp_1");
  EXPECT_EQ(t.echo["previous_response_id"], "resp_1");
  auto not_kept =
      translate_request(json{{"model", "m"}, {"input", "x"}, {"store", false}}, TranslateOptions{true});
  EXPECT_FALSE(std::get<TranslatedRequest>(not_kept).store);
  // Where nothing is kept, asking for it is refused, naming the member.
  EXPECT_EQ(refused({{"model", "m"}, {"input", "x"}, {"store", true}}).param, "store");
  EXPECT_EQ(refused({{"model", "m"}, {"input", "x"}, {"previous_response_id", "resp_1"}}).param,
            "previous_response_id");
}

TEST(ResponsesRequestTest, AKeptResponsesOutputContinuesAsChatMessages) {
  const json output = json::array(
      {{{"type", "reasoning"}, {"id", "rs_1"}, {"summary", json::array()}},
       {{"type", "message"},
        {"role", "assistant"},
        {"content",
         json::array({{{"type", "output_text"}, {"text", "hi"}, {"annotations", json::array()}}})}},
       {{"type", "function_call"}, {"call_id", "c"}, {"name", "f"}, {"arguments", "{}"}},
       {{"type", "web_search_call"}}});
  const json messages = output_messages(output);
  ASSERT_EQ(messages.size(), 1u) << messages.dump();
  EXPECT_EQ(messages[0]["role"], "assistant");
  EXPECT_EQ(messages[0]["content"], "hi");
  EXPECT_EQ(messages[0]["tool_calls"][0]["id"], "c");
}

TEST(ResponseObjectTest, KeptChatMessagesAreListedAsInputItems) {
  const json messages = json::array(
      {{{"role", "user"},
        {"content", json::array({{{"type", "text"}, {"text", "q"}},
                                 {{"type", "image_url"}, {"image_url", {{"url", "https://x/i.png"}}}}})}},
       {{"role", "assistant"},
        {"content", nullptr},
        {"tool_calls", json::array({{{"id", "c"}, {"function", {{"name", "f"}, {"arguments", "{}"}}}}})}},
       {{"role", "tool"}, {"tool_call_id", "c"}, {"content", "sunny"}}});
  const json items = input_items(messages, "resp_abc");
  ASSERT_EQ(items.size(), 3u) << items.dump();
  EXPECT_EQ(items[0]["content"][0], json({{"type", "input_text"}, {"text", "q"}}));
  EXPECT_EQ(items[0]["content"][1]["type"], "input_image");
  EXPECT_EQ(items[1]["type"], "function_call");
  EXPECT_EQ(items[2], json({{"type", "function_call_output"},
                            {"id", "fco_abc_2"},
                            {"call_id", "c"},
                            {"output", "sunny"},
                            {"status", "completed"}}));
}

TEST(ResponsesRequestTest, ParallelFunctionCallsAreOneAssistantTurn) {
  const auto t = translated(
      {{"model", "m"},
       {"input",
        json::array({{{"role", "user"}, {"content", "q"}},
                     {{"type", "function_call"}, {"call_id", "a"}, {"name", "f"}, {"arguments", "{}"}},
                     {{"type", "function_call"}, {"call_id", "b"}, {"name", "g"}, {"arguments", "{}"}},
                     {{"type", "function_call_output"}, {"call_id", "a"}, {"output", "1"}},
                     {{"type", "function_call_output"}, {"call_id", "b"}, {"output", "2"}}})}});
  const json& m = t.chat["messages"];
  ASSERT_EQ(m.size(), 4u) << m.dump();
  EXPECT_EQ(m[1]["tool_calls"].size(), 2u);
  EXPECT_EQ(m[2]["tool_call_id"], "a");
  EXPECT_EQ(m[3]["tool_call_id"], "b");
}

TEST(ResponsesRequestTest, RefusalsNameTheResponsesParameter) {
  EXPECT_EQ(refused({{"model", "m"}, {"input", "x"}, {"seed", 1}}).code, "unknown_parameter");
  EXPECT_EQ(refused({{"model", "m"},
                     {"input", json::array({{{"type", "message"}, {"role", "user"}, {"content", 3}}})}})
                .param,
            "input[0].content");
  const auto tools =
      refused({{"model", "m"}, {"input", "x"}, {"tools", json::array({{{"type", "teleport"}}})}});
  EXPECT_EQ(tools.status, 422);
  EXPECT_EQ(tools.param, "tools[0].type");
  // A client's long key is quoted as an excerpt.
  const std::string long_key(5000, 'k');
  const auto unknown = refused({{"model", "m"}, {"input", "x"}, {long_key, 1}});
  EXPECT_LT(unknown.message.size(), 200u);
  EXPECT_LT(unknown.param.size(), 100u);
}

TEST(ResponsesDoorTest, LaterStagesChatParametersAreNamedAsTheClientSentThem) {
  const ResponsesDoor door;
  EXPECT_EQ(door.param_name("max_tokens"), "max_output_tokens");
  EXPECT_EQ(door.param_name("messages[2].content"), "input");
  EXPECT_EQ(door.param_name("response_format"), "text.format");
  EXPECT_EQ(door.param_name("model"), "model");
}

TEST(ResponseObjectTest, AChatCompletionBecomesAResponse) {
  const json chat = {
      {"id", "chatcmpl-1"},
      {"object", "chat.completion"},
      {"created", 1700000000},
      {"model", "alias"},
      {"choices",
       json::array({{{"index", 0},
                     {"message",
                      {{"role", "assistant"},
                       {"content", "hi"},
                       {"tool_calls", json::array({{{"id", "call_1"},
                                                    {"type", "function"},
                                                    {"function", {{"name", "f"}, {"arguments", "{}"}}}}})}}},
                     {"finish_reason", "length"}}})},
      {"usage",
       {{"prompt_tokens", 5},
        {"completion_tokens", 7},
        {"total_tokens", 12},
        {"prompt_tokens_details", {{"cached_tokens", 2}}},
        {"completion_tokens_details", {{"reasoning_tokens", 3}}}}}};
  const auto text = whole_response(chat.dump(), json::object(), kRequestId);
  ASSERT_TRUE(text);
  const json r = json::parse(*text);
  EXPECT_EQ(r["id"], "resp_abcdefghijklmnopqrstuvwx");
  EXPECT_EQ(r["created_at"], 1700000000);
  EXPECT_EQ(r["status"], "incomplete");
  EXPECT_EQ(r["incomplete_details"]["reason"], "max_output_tokens");
  ASSERT_EQ(r["output"].size(), 2u);
  EXPECT_EQ(r["output"][0]["content"][0]["text"], "hi");
  EXPECT_EQ(r["output"][1]["type"], "function_call");
  EXPECT_EQ(r["output"][1]["call_id"], "call_1");
  EXPECT_EQ(r["usage"], json({{"input_tokens", 5},
                              {"input_tokens_details", {{"cached_tokens", 2}}},
                              {"output_tokens", 7},
                              {"output_tokens_details", {{"reasoning_tokens", 3}}},
                              {"total_tokens", 12}}));
  EXPECT_FALSE(whole_response("[1]", json::object(), kRequestId));
  // A plugin's member of an unexpected type is read as absent, never thrown on.
  EXPECT_TRUE(whole_response(R"({"choices":[{"message":{"tool_calls":[{"id":5,"function":{"name":[]}}]}}]})",
                             json::object(), kRequestId));
}

// The types of the events in `out`.
std::vector<std::string> types_of(const std::string& out) {
  std::vector<std::string> types;
  for (std::size_t at = out.find("event: "); at != std::string::npos; at = out.find("event: ", at + 1))
    types.push_back(out.substr(at + 7, out.find('\n', at) - at - 7));
  return types;
}

TEST(ResponseEventsTest, TextThenAToolCallAreTwoItemsInOrder) {
  ResponseEventWriter writer(json::object(), kRequestId);
  std::string out;
  const auto chunk = [&](const json& delta, const json& finish = nullptr) {
    ASSERT_TRUE(writer.chunk(
        json({{"created", 5},
              {"model", "m"},
              {"choices", json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}})}})
            .dump(),
        out));
  };
  chunk({{"role", "assistant"}, {"content", ""}});
  chunk({{"content", "hi"}});
  chunk({{"tool_calls",
          json::array(
              {{{"index", 0}, {"id", "call_1"}, {"function", {{"name", "f"}, {"arguments", "{\"a\""}}}}})}});
  chunk({{"tool_calls", json::array({{{"index", 0}, {"function", {{"arguments", ":1}"}}}}})}}, "tool_calls");
  writer.finish(StreamUsage{3, 4, 0, 0}, out);
  const std::vector<std::string> want = {"response.created",
                                         "response.in_progress",
                                         "response.output_item.added",
                                         "response.content_part.added",
                                         "response.output_text.delta",
                                         "response.output_text.done",
                                         "response.content_part.done",
                                         "response.output_item.done",
                                         "response.output_item.added",
                                         "response.function_call_arguments.delta",
                                         "response.function_call_arguments.delta",
                                         "response.function_call_arguments.done",
                                         "response.output_item.done",
                                         "response.completed"};
  EXPECT_EQ(types_of(out), want);
  const auto last = out.rfind("data: ");
  const json done = json::parse(out.substr(last + 6))["response"];
  EXPECT_EQ(done["output"][1]["arguments"], "{\"a\":1}");
  EXPECT_EQ(done["usage"]["total_tokens"], 7);
  EXPECT_EQ(done["created_at"], 5);
}

TEST(ResponseEventsTest, AKeptStreamEndsWithTheResponseThatWasKept) {
  // Two writers fed the same chunks; one is asked for the final response
  // first, as a kept stream's shaper does before the stream ends.
  ResponseEventWriter kept(json::object(), kRequestId);
  ResponseEventWriter plain(json::object(), kRequestId);
  std::string kept_out, plain_out;
  for (const json& delta : {json{{"role", "assistant"}, {"content", "hel"}}, json{{"content", "lo"}}}) {
    const std::string chunk =
        json({{"created", 5}, {"model", "m"}, {"choices", json::array({{{"index", 0}, {"delta", delta}}})}})
            .dump();
    ASSERT_TRUE(kept.chunk(chunk, kept_out));
    ASSERT_TRUE(plain.chunk(chunk, plain_out));
  }
  const std::string stored = kept.final_response(StreamUsage{3, 4, 0, 0}).dump();
  kept.finish(StreamUsage{3, 4, 0, 0}, kept_out);
  plain.finish(StreamUsage{3, 4, 0, 0}, plain_out);
  EXPECT_EQ(kept_out, plain_out) << "the stream is the same whether it was kept or not";
  EXPECT_EQ(json::parse(kept_out.substr(kept_out.rfind("data: ") + 6))["response"].dump(), stored);
}

TEST(ResponseEventsTest, AFailureEndsTheStreamWithFailedThenError) {
  ResponseEventWriter writer(json::object(), kRequestId);
  std::string out;
  writer.fail(errors::ApiError{504, "provider_timeout", "late \xff", {}}, out);
  writer.finish(std::nullopt, out);  // nothing after the end
  EXPECT_EQ(types_of(out), (std::vector<std::string>{"response.created", "response.in_progress",
                                                     "response.failed", "error"}));
  const json error = json::parse(out.substr(out.rfind("data: ") + 6));
  EXPECT_EQ(error["error"]["code"], "provider_timeout");
  EXPECT_EQ(error["error"]["type"], "api_error");
  EXPECT_EQ(error["error"]["request_id"], kRequestId);
}

}  // namespace
}  // namespace modelgw::responses
