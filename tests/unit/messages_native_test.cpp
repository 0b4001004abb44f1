// Anthropic's Messages API served natively (core/src/messages/native_*):
// the request a native provider gets (the client's body as sent), the
// vendor's message and events passed on with the call's request_id, and the
// door writing both forms.
#include "messages/messages_door.h"
#include "messages/native_answer.h"
#include "messages/native_request.h"
#include "net/asio.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace modelgw::messages {
namespace {

using nlohmann::json;

constexpr const char* kNativeMsgRequestId = "req_abcdefghijklmnopqrstuvwx";

std::vector<std::pair<std::string, std::string>> framed_events(const std::string& sse) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t at = 0;
  for (int guard = 0; guard < 1000 && at < sse.size(); ++guard) {
    const auto end = sse.find("\n\n", at);
    if (end == std::string::npos) break;
    const std::string block = sse.substr(at, end - at);
    at = end + 2;
    const auto nl = block.find('\n');
    EXPECT_EQ(block.rfind("event: ", 0), 0u) << block;
    EXPECT_EQ(block.compare(nl + 1, 6, "data: "), 0) << block;
    EXPECT_EQ(block.find('\n', nl + 1), std::string::npos) << "one data: line";
    out.emplace_back(block.substr(7, nl - 7), block.substr(nl + 7));
  }
  EXPECT_EQ(at, sse.size());
  return out;
}

TEST(MessagesNativeRequest, IsTheClientsBodyAsSent) {
  const json body = {
      {"model", "claude-alias"},
      {"max_tokens", 64},
      {"messages",
       json::array({{{"role", "assistant"},
                     {"content", json::array({{{"type", "thinking"}, {"thinking", "t"}, {"signature", "sig"}},
                                              {{"type", "text"},
                                               {"text", "x"},
                                               {"cache_control", {{"type", "ephemeral"}}}}})}}})}};
  EXPECT_EQ(native_request(body), body) << "thinking signatures and cache_control reach the vendor";
}

TEST(MessagesNativeAnswer, TheWholeMessageGetsTheRequestIdSplicedIn) {
  const NativeMessageAnswer answer(kNativeMsgRequestId);
  const std::string vendor =
      R"({"id":"msg_vendor","type":"message","role":"assistant","content":[{"type":"text","text":"hi \"there\""}],)"
      R"("model":"claude-alias","stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":2}})";
  const auto body = answer.whole(vendor);
  ASSERT_TRUE(body.has_value());
  EXPECT_EQ(body->rfind(std::string(R"({"request_id":")") + kNativeMsgRequestId + "\",", 0), 0u) << *body;
  EXPECT_NE(body->find(R"("content":[{"type":"text","text":"hi \"there\""}])"), std::string::npos)
      << "the content is passed on as written";
  const json doc = json::parse(*body);
  EXPECT_EQ(doc["id"], "msg_vendor")
      << "the vendor's message id stands (nothing is kept under the gateway's)";
  EXPECT_EQ(doc["request_id"], kNativeMsgRequestId);

  EXPECT_FALSE(answer.whole(R"({"type":"error","error":{}})"));
  EXPECT_FALSE(answer.whole("[]"));
  EXPECT_FALSE(answer.whole("{broken"));
  // A repeated key: read parsed, the request_id still the call's.
  const auto repeated = answer.whole(R"({"type":"message","request_id":"x","a":1,"a":2})");
  ASSERT_TRUE(repeated.has_value());
  EXPECT_EQ(json::parse(*repeated)["request_id"], kNativeMsgRequestId);
}

TEST(MessagesNativeAnswer, EventsAreFramedByTheirTypeAsWritten) {
  NativeMessageAnswer answer(kNativeMsgRequestId);
  std::string out;
  ASSERT_TRUE(answer.event(
      R"({"type":"message_start","message":{"id":"msg_v","type":"message","role":"assistant","content":[],"model":"a","usage":{"input_tokens":5,"output_tokens":1}}})",
      out));
  const std::string delta =
      R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}})";
  ASSERT_TRUE(answer.event(delta, out));
  ASSERT_TRUE(answer.event("{\"type\":\"ping\",\n\"x\":1}", out)) << "a line break between tokens";
  ASSERT_TRUE(answer.event(R"({"type":"message_stop"})", out));
  EXPECT_FALSE(answer.event(R"({"index":0})", out)) << "no type";
  EXPECT_FALSE(answer.event(R"({"type":7})", out));
  EXPECT_FALSE(answer.event(R"({"type":"a\nb"})", out)) << "a type that would end the event: line";
  EXPECT_FALSE(answer.event("not json", out));
  const auto events = framed_events(out);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].first, "message_start");
  EXPECT_EQ(json::parse(events[0].second)["request_id"], kNativeMsgRequestId);
  EXPECT_EQ(json::parse(events[0].second)["message"]["id"], "msg_v");
  EXPECT_EQ(events[1], std::make_pair(std::string("content_block_delta"), delta)) << "no renumbering";
  EXPECT_EQ(events[2].first, "ping");
  EXPECT_EQ(json::parse(events[2].second)["x"], 1);
  EXPECT_EQ(events[3].first, "message_stop");
  std::string after;
  answer.fail(errors::ApiError{502, "provider_failed", "late", {}}, after);
  EXPECT_TRUE(after.empty()) << "nothing after message_stop";
}

TEST(MessagesNativeAnswer, AFailureAfterTheStartIsAnErrorEvent) {
  NativeMessageAnswer answer(kNativeMsgRequestId);
  std::string out;
  ASSERT_TRUE(answer.event(R"({"type":"message_start","message":{"id":"m"}})", out));
  answer.fail(errors::ApiError{529, "provider_overloaded", "overloaded", {}}, out);
  const auto events = framed_events(out);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].first, "error");
  const json e = json::parse(events[1].second);
  EXPECT_EQ(e["error"]["type"], "overloaded_error");
  EXPECT_EQ(e["request_id"], kNativeMsgRequestId);
}

// The door end to end: open() and the shaper it makes.
chat::DoorRequest opened(const MessagesDoor& door, json body, bool native) {
  net::asio::io_context io;
  std::optional<std::variant<chat::DoorRequest, errors::ApiError>> result;
  const std::string text = body.dump();
  net::asio::co_spawn(io, door.open(std::move(body), text, 1, kNativeMsgRequestId, native),
                      [&](std::exception_ptr e, std::variant<chat::DoorRequest, errors::ApiError> r) {
                        if (!e) result.emplace(std::move(r));
                      });
  io.run();
  if (!result || !std::holds_alternative<chat::DoorRequest>(*result)) {
    ADD_FAILURE() << "the door refused the body";
    return {};
  }
  return std::get<chat::DoorRequest>(std::move(*result));
}

TEST(MessagesDoorShaper, WritesTheChatAnswerOrPassesTheNativeOneOn) {
  const MessagesDoor door;
  const json body = {{"model", "claude-alias"},
                     {"max_tokens", 10},
                     {"stream", true},
                     {"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}};
  auto req = opened(door, body, true);
  ASSERT_TRUE(req.shaper);
  ASSERT_TRUE(req.native.has_value());
  EXPECT_EQ(*req.native, body);
  EXPECT_EQ(req.native_text, body.dump()) << "the body as sent: not serialised again";
  EXPECT_EQ(req.chat["stream"], true);

  // A chat attempt: the chat chunks become Anthropic's events.
  std::string out;
  req.shaper->use_native(false);
  ASSERT_TRUE(
      req.shaper->chunk(R"({"choices":[{"index":0,"delta":{"content":"Hi"}}]})", kNativeMsgRequestId, out));
  mgw_usage usage{};
  usage.prompt_tokens = 10;
  usage.completion_tokens = 2;
  usage.cached_prompt_tokens = 4;
  usage.cache_write_prompt_tokens = 3;
  req.shaper->finish(usage, kNativeMsgRequestId, out);
  const auto events = framed_events(out);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front().first, "message_start");
  EXPECT_EQ(events.back().first, "message_stop");
  const json usage_out = json::parse(events[events.size() - 2].second)["usage"];
  EXPECT_EQ(usage_out, json({{"input_tokens", 3},
                             {"cache_creation_input_tokens", 3},
                             {"cache_read_input_tokens", 4},
                             {"output_tokens", 2}}));

  // A fallback to a native provider: its events are passed on.
  auto native = opened(door, body, true);
  native.shaper->use_native(true);
  std::string passed;
  ASSERT_TRUE(native.shaper->chunk(R"({"type":"message_stop"})", kNativeMsgRequestId, passed));
  native.shaper->finish(usage, kNativeMsgRequestId, passed);
  EXPECT_EQ(passed, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n") << "finish adds nothing";
  const auto whole = native.shaper->whole(R"({"type":"message","content":[]})", kNativeMsgRequestId);
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(json::parse(*whole)["request_id"], kNativeMsgRequestId);

  auto plain = opened(door, body, false);
  EXPECT_FALSE(plain.native.has_value()) << "written only when a native provider is on the route";
  const auto message = plain.shaper->whole(
      R"({"choices":[{"message":{"content":"ok"},"finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":1}})",
      kNativeMsgRequestId);
  ASSERT_TRUE(message.has_value());
  EXPECT_EQ(json::parse(*message)["stop_reason"], "max_tokens");
  EXPECT_EQ(json::parse(*message)["model"], "claude-alias");
}

}  // namespace
}  // namespace modelgw::messages
