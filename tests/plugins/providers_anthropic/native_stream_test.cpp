// Streamed Messages answers (ABI 1.11, operation "messages"): each event's
// data object is a chunk, usage comes right before message_stop, an error
// event is an error.
#include "stream_support.h"

#include <gtest/gtest.h>

namespace anthropic_test {
namespace {

CallContext messages_stream_call() {
  CallContext c = stream_call();
  c.operation = MGW_OPERATION_MESSAGES;
  return c;
}

// A short stream with a signed thinking block, text, a ping and usage with
// the prompt cache (short: every split of it is tried).
const std::string kThinkingStream =
    "event: message_start\n"
    R"(data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"usage":{"input_tokens":3,"cache_creation_input_tokens":4,"cache_read_input_tokens":5,"output_tokens":1}}})"
    "\n\nevent: content_block_start\n"
    R"(data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}})"
    "\n\nevent: content_block_delta\n"
    R"(data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hm."}})"
    "\n\nevent: content_block_delta\n"
    R"(data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}})"
    "\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\nevent: content_block_delta\n"
    R"(data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi"}})"
    "\n\nevent: message_delta\n"
    R"(data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}})"
    "\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

std::vector<std::string> types_of(const Outcome& o) {
  std::vector<std::string> out;
  for (const Json& c : o.parsed()) out.push_back(c.value("type", std::string("(none)")));
  return out;
}

TEST(NativeMessagesStream, EveryEventIsAChunkAndUsageComesBeforeMessageStop) {
  const Outcome o = stream_every_way(kThinkingStream, messages_stream_call());
  ASSERT_FALSE(o.error.has_value()) << o.error->message;
  EXPECT_EQ(types_of(o), (std::vector<std::string>{"message_start", "content_block_start",
                                                   "content_block_delta", "content_block_delta", "ping",
                                                   "content_block_delta", "message_delta", "message_stop"}));
  ASSERT_GE(o.events.size(), 2u);
  EXPECT_EQ(o.events[o.events.size() - 2], "usage");
  EXPECT_EQ(o.events.back(), "chunk");
  const auto chunks = o.parsed();
  EXPECT_EQ(chunks[0]["message"]["model"], "test-alias");
  EXPECT_EQ(chunks[3]["delta"]["signature"], "EqQB");
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->prompt_tokens, 12);
  EXPECT_EQ(o.usage->completion_tokens, 7);
  EXPECT_EQ(o.usage->cached_prompt_tokens, 5);
  EXPECT_EQ(o.usage->cache_write_prompt_tokens, 4);
}

TEST(NativeMessagesStream, WithoutEventNamesTheDataTypeDecides) {
  const Outcome named = stream({kThinkingStream}, messages_stream_call());
  const Outcome bare = stream({without_event_names(kThinkingStream)}, messages_stream_call());
  EXPECT_EQ(bare.chunks, named.chunks);
  EXPECT_EQ(bare.events, named.events);
}

TEST(NativeMessagesStream, AnErrorEventIsAnErrorByItsType) {
  const auto error_after = [](std::string_view type, bool after_start) {
    std::string t;
    if (after_start) {
      t += "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\"}}\n\n";
    }
    t += "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"" + std::string(type) +
         "\",\"message\":\"Busy sk-ant-api03-Test0Key1Abc2Def3Ghi4-Jkl5Mno6AA\"}}\n\n";
    t += "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    return stream({t}, messages_stream_call());
  };
  Outcome o = error_after("overloaded_error", false);
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->http_status, 503);
  EXPECT_EQ(o.error->code, "provider_failed");
  EXPECT_TRUE(o.error->retryable);
  EXPECT_EQ(o.error->message.find("Test0Key1"), std::string::npos) << o.error->message;
  EXPECT_EQ(o.events, std::vector<std::string>{"error"});
  o = error_after("overloaded_error", true);
  EXPECT_EQ(o.error->http_status, 503);
  EXPECT_FALSE(o.error->retryable);
  EXPECT_EQ(o.events, (std::vector<std::string>{"chunk", "error"}));
  o = error_after("rate_limit_error", false);
  EXPECT_EQ(o.error->http_status, 429);
  EXPECT_EQ(o.error->code, "rate_limit_exceeded");
  o = error_after("timeout_error", false);
  EXPECT_EQ(o.error->http_status, 504);
  EXPECT_EQ(o.error->code, "provider_timeout");
  o = error_after("api_error", false);
  EXPECT_EQ(o.error->http_status, 502);
  EXPECT_TRUE(o.error->retryable);
  o = error_after("invalid_request_error", false);
  EXPECT_EQ(o.error->http_status, 502);
  EXPECT_FALSE(o.error->retryable);
  o = stream({"event: error\ndata: not json\n\n"}, messages_stream_call());
  EXPECT_EQ(o.error->http_status, 502);
}

TEST(NativeMessagesStream, ABodyThatEndsBeforeMessageStopFails) {
  const std::string cut = kThinkingStream.substr(0, kThinkingStream.find("event: message_stop"));
  const Outcome o = stream({cut}, messages_stream_call());
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->code, "provider_failed");
  EXPECT_FALSE(o.error->retryable);
  EXPECT_FALSE(o.usage.has_value());
}

TEST(NativeMessagesStream, NothingCountsAfterMessageStop) {
  const Outcome o =
      stream({kThinkingStream + "event: ping\ndata: {\"type\":\"ping\"}\n\n"}, messages_stream_call());
  EXPECT_FALSE(o.error.has_value());
  EXPECT_EQ(types_of(o).back(), "message_stop");
}

TEST(NativeMessagesStream, WithoutUsageTheStreamEstimates) {
  const std::string t =
      "data: {\"type\":\"message_start\",\"message\":{}}\n\n"
      "data: "
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"12345\"}}"
      "\n\n"
      "data: {\"type\":\"message_stop\"}\n\n";
  CallContext call = messages_stream_call();
  call.prompt_tokens = 9;
  const Outcome o = stream({t}, call);
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->prompt_tokens, 9);
  EXPECT_EQ(o.usage->completion_tokens, 2);
}

TEST(NativeMessagesStream, AnEventThatIsNotAnObjectFails) {
  for (const char* t : {"data: [1]\n\n", "data: {\"no\":\"type\"}\n\n", "event: x\ndata: nope\n\n"}) {
    const Outcome o = stream({t}, messages_stream_call());
    ASSERT_TRUE(o.error.has_value()) << t;
    EXPECT_EQ(o.error->message, "upstream sent an invalid stream event") << t;
  }
}

}  // namespace
}  // namespace anthropic_test
