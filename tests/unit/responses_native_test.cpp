// The Responses API served natively (core/src/responses/native_*): the
// request a native provider gets (the whole conversation, store: false, no
// hosted tools), a kept turn written back as input items, and the vendor's
// answer passed on under the gateway's id, store and request_id.
#include "responses/native_answer.h"
#include "responses/native_request.h"
#include "responses/responses_request.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

namespace modelgw::responses {
namespace {

using nlohmann::json;

constexpr const char* kNativeRequestId = "req_abcdefghijklmnopqrstuvwx";

// The data objects of an SSE text, in order, with their `event:` names.
std::vector<std::pair<std::string, json>> native_events_of(const std::string& sse) {
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
  return out;
}

TEST(NativeRequest, AContinuedConversationIsWrittenOutWithStoreFalseAndNoHostedTools) {
  json body = {{"model", "gpt-x"},
               {"instructions", "be brief"},
               {"input", "and now?"},
               {"previous_response_id", "resp_1"},
               {"store", true},
               {"tools", json::array({{{"type", "function"}, {"name", "f"}}, {{"type", "web_search"}}})}};
  json history = json::array({{{"role", "user"}, {"content", "hi"}}});
  const json native = native_request(body, history);
  EXPECT_FALSE(native.contains("previous_response_id")) << "the vendor keeps nothing and knows no id";
  EXPECT_EQ(native["store"], false);
  EXPECT_EQ(native["instructions"], "be brief");
  ASSERT_EQ(native["tools"].size(), 1u);
  EXPECT_EQ(native["tools"][0]["name"], "f");
  ASSERT_EQ(native["input"].size(), 2u);
  EXPECT_EQ(native["input"][0]["content"], "hi");
  EXPECT_EQ(native["input"][1], json({{"role", "user"}, {"content", "and now?"}}));

  json items_input = {
      {"model", "m"},
      {"input", json::array({{{"type", "function_call_output"}, {"call_id", "c1"}, {"output", "42"}}})}};
  const json no_history = native_request(items_input, json());
  EXPECT_EQ(no_history["input"], items_input["input"]) << "without history the input is the client's";
  EXPECT_EQ(no_history["store"], false) << "store: false also when the client left it to its default";
}

// The text a native provider is sent without a serialisation reads as the
// document native_request writes, or is not written at all.
TEST(NativeRequest, ItsTextIsTheBodyAsSentWithStoreFalseOrNothing) {
  struct Case {
    std::string text;
    bool written;
  };
  const std::vector<Case> cases = {
      {R"({"model":"m","input":"hi","store":false})", true},
      {R"( {"model":"m", "input":[{"role":"user","content":"a \"b\""}], "temperature":0.5} )", true},
      {R"({"model":"m","input":"hi","store":true,"tools":[{"type":"function","name":"f"}]})", true},
      {R"({"model":"m","input":"hi","store":null})", true},
      {R"({"model":"m","input":"hi","tools":[{"type":"web_search"}]})", false},
      {R"({"model":"m","input":"hi","previous_response_id":"resp_1"})", false},
      {R"({"model":"m","input":"hi","previous_response_id":null})", false},
      {R"({"model":"m","input":"hi","st\u006fre":true})", false},  // a key only a parse reads
      {"\xEF\xBB\xBF{\"model\":\"m\",\"input\":\"hi\"}", false},   // a byte order mark
  };
  for (const auto& c : cases) {
    const json body = json::parse(c.text);
    const std::string text = native_request_text(c.text, body);
    EXPECT_EQ(!text.empty(), c.written) << c.text;
    if (text.empty()) continue;
    EXPECT_EQ(json::parse(text), native_request(body, json())) << c.text;
    if (const auto store = body.find("store"); store != body.end() && *store == false) {
      EXPECT_EQ(text, c.text) << "nothing to change: the body as sent";
    }
  }
}

TEST(NativeRequest, AKeptTurnGoesBackAsItemsWithReasoningOnlyWhenSealed) {
  const json chat_input = json::array({{{"role", "user"}, {"content", "what is 6*7?"}}});
  const json response = {
      {"object", "response"},
      {"output", json::array({
                     {{"type", "reasoning"}, {"id", "rs_1"}, {"summary", json::array()}},
                     {{"type", "reasoning"},
                      {"id", "rs_2"},
                      {"summary", json::array()},
                      {"encrypted_content", "sealed"},
                      {"status", "completed"}},
                     {{"type", "function_call"},
                      {"id", "fc_1"},
                      {"call_id", "call_1"},
                      {"name", "calc"},
                      {"arguments", "{}"},
                      {"status", "completed"}},
                     {{"type", "message"},
                      {"id", "msg_1"},
                      {"role", "assistant"},
                      {"status", "completed"},
                      {"content", json::array({{{"type", "output_text"}, {"text", "42"}}})}},
                 })}};
  json items = json::array();
  append_turn_items(items, chat_input, response);
  ASSERT_EQ(items.size(), 4u) << items.dump();
  EXPECT_EQ(items[0]["role"], "user");
  EXPECT_FALSE(items[0].contains("id"));
  EXPECT_EQ(items[1]["type"], "reasoning");
  EXPECT_EQ(items[1]["encrypted_content"], "sealed") << "reasoning goes back untouched when sealed";
  EXPECT_EQ(items[1]["id"], "rs_2");
  EXPECT_EQ(items[2]["type"], "function_call");
  EXPECT_FALSE(items[2].contains("id"));
  EXPECT_EQ(items[2]["call_id"], "call_1");
  EXPECT_EQ(items[3]["type"], "message");
  EXPECT_FALSE(items[3].contains("status"));
}

TEST(NativeAnswer, AWholeResponseCarriesTheGatewaysIdStoreAndRequestId) {
  const json echo = {{"store", true}, {"previous_response_id", "resp_prev"}};
  NativeAnswer answer(echo, kNativeRequestId);
  const json vendor = {{"id", "resp_vendor"},
                       {"object", "response"},
                       {"status", "completed"},
                       {"store", false},
                       {"previous_response_id", nullptr},
                       {"model", "gpt-x"},
                       {"output", json::array()}};
  const auto body = answer.whole(vendor.dump());
  ASSERT_TRUE(body);
  const json doc = json::parse(*body);
  EXPECT_EQ(doc["id"], "resp_abcdefghijklmnopqrstuvwx");
  EXPECT_EQ(doc["store"], true);
  EXPECT_EQ(doc["previous_response_id"], "resp_prev");
  EXPECT_EQ(doc["request_id"], kNativeRequestId);
  EXPECT_EQ(doc["model"], "gpt-x");
  const json kept = json::parse(answer.final_response());
  EXPECT_EQ(kept["id"], doc["id"]);
  EXPECT_FALSE(kept.contains("request_id")) << "the kept object is the response, not one call's answer";

  EXPECT_FALSE(answer.whole(R"({"object":"chat.completion"})"));

  // What the request repeats fills what a vendor's object leaves out, as
  // OpenAI's own objects always repeat it; what the vendor wrote stands.
  const json text_echo = {
      {"store", false}, {"text", {{"format", {{"type", "json_object"}}}}}, {"model", "x"}};
  NativeAnswer echoing(text_echo, kNativeRequestId);
  const json filled = json::parse(*echoing.whole(R"({"object":"response","model":"gpt-x","output":[]})"));
  EXPECT_EQ(filled["text"]["format"]["type"], "json_object");
  EXPECT_EQ(filled["model"], "gpt-x");
  std::string out;
  ASSERT_TRUE(echoing.event(
      R"({"type":"response.created","response":{"object":"response","status":"in_progress"}})", out));
  EXPECT_NE(out.find(R"("format":{"type":"json_object"})"), std::string::npos) << out;
  EXPECT_FALSE(answer.whole("not json"));
}

TEST(NativeAnswer, EventsAreRenumberedOwnedAndTheTerminalResponseIsKept) {
  const json echo = {{"store", false}};
  NativeAnswer answer(echo, kNativeRequestId);
  std::string out;
  ASSERT_TRUE(answer.event(
      R"({"type":"response.created","sequence_number":7,"response":{"id":"resp_v","object":"response","status":"in_progress","model":"m"}})",
      out));
  ASSERT_TRUE(answer.event(
      R"({"type":"response.output_text.delta","sequence_number":8,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi"})",
      out));
  EXPECT_TRUE(answer.final_response().empty());
  ASSERT_TRUE(answer.event(
      R"({"type":"response.completed","sequence_number":9,"response":{"id":"resp_v","object":"response","status":"completed","model":"m","output":[]}})",
      out));
  EXPECT_FALSE(answer.event(R"({"no":"type"})", out));
  EXPECT_FALSE(answer.event("[1]", out));
  const auto events = native_events_of(out);
  ASSERT_EQ(events.size(), 3u) << out;
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].second["sequence_number"], static_cast<int>(i));
    EXPECT_EQ(events[i].second["request_id"], kNativeRequestId);
    EXPECT_EQ(events[i].first, events[i].second["type"]);
  }
  EXPECT_EQ(events[0].second["response"]["id"], "resp_abcdefghijklmnopqrstuvwx");
  EXPECT_EQ(events[0].second["response"]["store"], false);
  EXPECT_EQ(events[1].second["delta"], "Hi");
  EXPECT_EQ(json::parse(answer.final_response())["status"], "completed");
}

// Events and bodies are rewritten by splicing when their keys index cleanly,
// and through a parse when not (a key written with an escape): the same
// answer either way.
TEST(NativeAnswer, SplicedAndParsedRewritesAgree) {
  const json echo = {{"store", true}};
  NativeAnswer spliced(echo, kNativeRequestId);
  NativeAnswer parsed(echo, kNativeRequestId);
  std::string a, b;
  ASSERT_TRUE(spliced.event(R"({"type":"response.output_text.delta","delta":"Hi","sequence_number":5})", a));
  ASSERT_TRUE(
      parsed.event(R"({"type":"response.output_text.delta","d\u0065lta":"Hi","sequence_number":5})", b));
  const auto ea = native_events_of(a), eb = native_events_of(b);
  ASSERT_EQ(ea.size(), 1u);
  ASSERT_EQ(eb.size(), 1u);
  EXPECT_EQ(ea[0].first, "response.output_text.delta");
  EXPECT_EQ(ea[0].second, eb[0].second);
  EXPECT_EQ(ea[0].second["sequence_number"], 0);

  const std::string vendor =
      R"({"id":"resp_v","object":"response","status":"completed","store":false,"request_id":"req_x","output":[]})";
  std::string escaped = vendor;
  escaped.replace(escaped.find("\"status\""), 8, "\"st\\u0061tus\"");
  const auto wa = spliced.whole(vendor), wb = parsed.whole(escaped);
  ASSERT_TRUE(wa);
  ASSERT_TRUE(wb);
  EXPECT_EQ(json::parse(*wa), json::parse(*wb));
  EXPECT_EQ(json::parse(*wa)["request_id"], kNativeRequestId) << "the vendor's request_id is not the call's";
  EXPECT_EQ(json::parse(spliced.final_response()), json::parse(parsed.final_response()));
  EXPECT_FALSE(spliced.whole(R"({"object":"response",)")) << "not JSON";
  EXPECT_FALSE(spliced.event(R"({"type":"x",)", a)) << "not JSON";
  EXPECT_FALSE(spliced.event(R"({"type":1})", a)) << "a type that is not a string";
}

// A translated request's echo (the API's defaults, some replaced by the
// request's own values) fills what the vendor's object leaves out, each
// value as the request gave it, spliced or parsed alike.
TEST(NativeAnswer, TheEchoFillsWhatTheVendorLeftOutWithTheRequestsOwnValues) {
  json echo = echo_defaults();
  echo["temperature"] = 0.25;
  echo["metadata"] = {{"k", "v"}};
  echo["text"] = {{"format", {{"type", "json_object"}}}};
  echo["instructions"] = "be brief";
  NativeAnswer spliced(echo, kNativeRequestId);
  NativeAnswer parsed(echo, kNativeRequestId);
  const std::string vendor = R"({"id":"resp_v","object":"response","status":"completed","top_p":0.5,)"
                             R"("tools":[{"type":"function","name":"f"}],"output":[]})";
  std::string escaped = vendor;
  escaped.replace(escaped.find("\"status\""), 8, "\"st\\u0061tus\"");
  const auto wa = spliced.whole(vendor), wb = parsed.whole(escaped);
  ASSERT_TRUE(wa);
  ASSERT_TRUE(wb);
  const json a = json::parse(*wa);
  EXPECT_EQ(a, json::parse(*wb));
  EXPECT_EQ(a["temperature"], 0.25);
  EXPECT_EQ(a["metadata"], json({{"k", "v"}}));
  EXPECT_EQ(a["text"]["format"]["type"], "json_object");
  EXPECT_EQ(a["instructions"], "be brief");
  EXPECT_EQ(a["top_p"], 0.5) << "the vendor's own value stays";
  EXPECT_EQ(a["tools"].size(), 1u);
  EXPECT_EQ(a["truncation"], "disabled") << "a default the request left alone";
  EXPECT_EQ(a["reasoning"], json({{"effort", nullptr}, {"summary", nullptr}}));
  EXPECT_EQ(a["parallel_tool_calls"], true);
  EXPECT_EQ(a["max_output_tokens"], nullptr);
  for (const auto& [key, value] : echo.items()) {
    if (key != "store") {
      EXPECT_TRUE(a.contains(key)) << key;
    }
  }
  EXPECT_EQ((*wa).find("\"temperature\":0.25"), (*wa).rfind("\"temperature\"")) << "each member once";
}

// Found by the responses_native fuzz target: JSON whitespace between a
// vendor's tokens may be a CR or LF, which would end the data: line (and a
// bare CR ends an SSE line too). Such an event is written compact instead.
TEST(NativeAnswer, AnEventWithLineBreaksBetweenItsTokensStaysOneDataLine) {
  const json echo = json::object();
  NativeAnswer answer(echo, kNativeRequestId);
  std::string out;
  ASSERT_TRUE(answer.event(
      "{\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\r\r\n\"id\":\"msg_1\","
      "\"type\":\"message\",\r\"content\":[]}}",
      out));
  EXPECT_EQ(out.find('\r'), std::string::npos) << out;
  const auto events = native_events_of(out);
  ASSERT_EQ(events.size(), 1u) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 3) << "event: line, data: line, blank line: " << out;
  EXPECT_EQ(events[0].second["item"]["id"], "msg_1");
  EXPECT_EQ(events[0].second["sequence_number"], 0);
}

TEST(NativeAnswer, AFailureAfterTheStartEndsWithResponseFailedAndTheErrorEnvelope) {
  const json echo = json::object();
  NativeAnswer answer(echo, kNativeRequestId);
  std::string out;
  ASSERT_TRUE(answer.event(
      R"({"type":"response.created","response":{"id":"resp_v","object":"response","status":"in_progress","model":"m"}})",
      out));
  answer.fail(errors::ApiError{502, "provider_failed", "the upstream provider 'p' failed", {}}, out);
  const auto events = native_events_of(out);
  ASSERT_EQ(events.size(), 3u) << out;
  EXPECT_EQ(events[1].first, "response.failed");
  EXPECT_EQ(events[1].second["response"]["status"], "failed");
  EXPECT_EQ(events[1].second["response"]["id"], "resp_abcdefghijklmnopqrstuvwx");
  EXPECT_EQ(events[1].second["response"]["error"]["code"], "provider_failed");
  EXPECT_EQ(events[2].first, "error");
  EXPECT_EQ(events[2].second["error"]["code"], "provider_failed");
  EXPECT_EQ(events[2].second["error"]["request_id"], kNativeRequestId);
  EXPECT_EQ(events[2].second["sequence_number"], 2);
  EXPECT_TRUE(answer.final_response().empty()) << "a failed answer is not kept";
}

}  // namespace
}  // namespace modelgw::responses
