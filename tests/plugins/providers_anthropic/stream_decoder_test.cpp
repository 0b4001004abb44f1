// on_stream_*: Anthropic SSE transcripts in, OpenAI chunks and usage out.
#include "stream_support.h"

#include <gtest/gtest.h>

namespace anthropic_test {
namespace {

const std::vector<std::string> kTextEvents = {"chunk", "chunk", "chunk", "chunk", "chunk", "usage", "chunk"};

TEST(Stream, TextBecomesRoleContentFinishAndUsageChunks) {
  const Outcome o = stream_every_way(fixture("stream_text.sse"));
  ASSERT_FALSE(o.error.has_value()) << o.error->message;
  // role, three text deltas, finish; usage; the usage chunk. Pings make none.
  EXPECT_EQ(o.events, kTextEvents);
  const auto chunks = o.parsed();
  EXPECT_EQ(chunks[0],
            Json::parse(R"({"id":"chatcmpl-msg_01PPTB1VfAYm5zB6hT3hLW8y","object":"chat.completion.chunk",
      "created":1700000000,"model":"test-alias",      "choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null})"));
  EXPECT_EQ(chunks[1]["choices"][0]["delta"], Json::parse(R"({"content":"Hello"})"));
  EXPECT_TRUE(chunks[1]["choices"][0]["finish_reason"].is_null());
  EXPECT_EQ(content_of(chunks), "Hello! How can I help you today?");
  EXPECT_EQ(chunks[4]["choices"][0], Json::parse(R"({"index":0,"delta":{},"finish_reason":"stop"})"));
  EXPECT_EQ(chunks[5],
            Json::parse(R"({"id":"chatcmpl-msg_01PPTB1VfAYm5zB6hT3hLW8y","object":"chat.completion.chunk",
      "created":1700000000,"model":"test-alias",      "choices":[],"usage":{"prompt_tokens":25,"completion_tokens":15,"total_tokens":40}})"));
}

TEST(Stream, ChunkMembersComeInOpenAIsOrder) {
  // Drift fixed: this provider wrote "usage" before "choices", the other two
  // after, as OpenAI does; all three now build chunks from the SDK's
  // ChunkEnvelope.
  const Outcome o = stream(whole(fixture("stream_text.sse")));
  for (const std::string& chunk : o.chunks) {
    const Json c = Json::parse(chunk);
    std::vector<std::string> keys;
    for (const auto& item : c.items()) {
      keys.push_back(item.key());
    }
    EXPECT_EQ(keys, (std::vector<std::string>{"id", "object", "created", "model", "choices", "usage"}))
        << chunk;
  }
}

TEST(Stream, EveryChunkSharesOneIdCreatedAndTheAlias) {
  CallContext call = stream_call();
  call.alias = "claude-fast";
  call.created_unix = 1761234567;
  const Outcome o = stream(whole(fixture("stream_tool_use.sse")), call);
  for (const auto& c : o.parsed()) {
    EXPECT_EQ(c["id"], "chatcmpl-msg_014p7gG3wDgGV9EUtLvnow3U");
    EXPECT_EQ(c["object"], "chat.completion.chunk");
    EXPECT_EQ(c["created"], 1761234567);
    EXPECT_EQ(c["model"], "claude-fast");
    EXPECT_FALSE(c.contains("request_id"));
  }
}

TEST(Stream, UsageComesFromMessageStartAndMessageDelta) {
  const Outcome o = stream(whole(fixture("stream_text.sse")));
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->struct_size, sizeof(mgw_usage));
  EXPECT_EQ(o.usage->prompt_tokens, 25);      // message_start's input_tokens
  EXPECT_EQ(o.usage->completion_tokens, 15);  // message_delta's output_tokens, not the start's 1
  EXPECT_EQ(o.usage->total_tokens, 40);
}

TEST(Stream, ToolUseStreamsAsOpenAIToolCallDeltas) {
  const Outcome o = stream_every_way(fixture("stream_tool_use.sse"));
  ASSERT_FALSE(o.error.has_value()) << o.error->message;
  const auto chunks = o.parsed();
  EXPECT_EQ(content_of(chunks), "Okay, let me check the weather.");
  // The block start announces the call with an id, a name and no arguments yet.
  const Json first_call = Json::parse(R"({"tool_calls":[{"index":0,"id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6",
      "type":"function","function":{"name":"get_weather","arguments":""}}]})");
  const Json second_call = Json::parse(R"({"tool_calls":[{"index":1,"id":"toolu_01Hx9ZcVb8NmQw2Er4Ty6Ui8",
      "type":"function","function":{"name":"get_time","arguments":""}}]})");
  int announced = 0;
  for (const auto& c : chunks) {
    if (c["choices"].empty()) {
      continue;
    }
    const Json& delta = c["choices"][0]["delta"];
    announced += (delta == first_call || delta == second_call) ? 1 : 0;
    if (delta.contains("tool_calls") && !delta["tool_calls"][0].contains("id")) {
      // Argument pieces carry only the index and the piece.
      EXPECT_EQ(delta["tool_calls"][0].size(), 2u) << delta.dump();
      EXPECT_EQ(delta["tool_calls"][0]["function"].size(), 1u) << delta.dump();
    }
  }
  EXPECT_EQ(announced, 2);
  EXPECT_EQ(Json::parse(arguments_of(chunks, 0)),
            Json::parse(R"({"location": "San Francisco, CA", "unit": "fahrenheit"})"));
  // A tool that streamed no input gets "{}", which OpenAI clients can parse.
  EXPECT_EQ(arguments_of(chunks, 1), "{}");
  const Json& finish = chunks[chunks.size() - 2]["choices"][0];
  EXPECT_EQ(finish["finish_reason"], "tool_calls");
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->prompt_tokens, 472 + 1024);  // cache reads are prompt tokens
  EXPECT_EQ(o.usage->completion_tokens, 89);
}

TEST(Stream, ThinkingIsLeftOutAndMaxTokensIsLength) {
  const Outcome o = stream_every_way(fixture("stream_thinking.sse"));
  ASSERT_FALSE(o.error.has_value());
  const auto chunks = o.parsed();
  EXPECT_EQ(content_of(chunks), "27 × 453 = 12,231");
  for (const auto& c : o.chunks) {
    EXPECT_EQ(c.find("10800"), std::string::npos) << c;  // thinking text
    EXPECT_EQ(c.find("EqQB"), std::string::npos) << c;   // signature
  }
  EXPECT_EQ(chunks[chunks.size() - 2]["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(o.chunks.size(), 4u);  // role, text, finish, usage
}

TEST(Stream, HandlesCrlfCommentsAndMultiLineData) {
  const std::string wire = fixture("stream_crlf_comments.sse");
  ASSERT_NE(wire.find("\r\n"), std::string::npos) << "the fixture lost its CRLF line ends";
  ASSERT_EQ(wire.find("\n\n"), std::string::npos);
  const Outcome o = stream_every_way(wire);
  ASSERT_FALSE(o.error.has_value()) << o.error->message;
  const auto chunks = o.parsed();
  EXPECT_EQ(content_of(chunks), "Bonjour à tous.");
  EXPECT_EQ(o.chunks.size(), 5u);                               // the comments made none
  EXPECT_EQ(chunks[3]["choices"][0]["finish_reason"], "stop");  // stop_sequence
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->total_tokens, 15);
}

TEST(Stream, EventsWithoutNamesAreReadByTheirType) {
  const Outcome named = stream(whole(fixture("stream_tool_use.sse")));
  const Outcome unnamed = stream(whole(without_event_names(fixture("stream_tool_use.sse"))));
  EXPECT_FALSE(unnamed.error.has_value());
  EXPECT_EQ(unnamed.chunks, named.chunks);
}

TEST(Stream, UnknownEventsAndDeltasAreIgnored) {
  const Outcome o = stream_every_way(fixture("stream_unknown_events.sse"));
  ASSERT_FALSE(o.error.has_value()) << o.error->message;
  const auto chunks = o.parsed();
  EXPECT_EQ(content_of(chunks), "Sunny.");
  // The server tool's input is Anthropic's own business, not a client tool call.
  for (const auto& c : o.chunks) {
    EXPECT_EQ(c.find("tool_calls"), std::string::npos) << c;
    EXPECT_EQ(c.find("weather"), std::string::npos) << c;
  }
  EXPECT_EQ(o.events, (std::vector<std::string>{"chunk", "chunk", "chunk", "usage", "chunk"}));
}

TEST(Stream, ANewerMessageDeltaWithInputTokensUpdatesThePrompt) {
  const std::string wire =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"usage\":"
      "{\"input_tokens\":10,\"cache_read_input_tokens\":5,\"output_tokens\":1}}}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
      "\"usage\":{\"input_tokens\":12,\"cache_creation_input_tokens\":3,\"output_tokens\":7}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  const Outcome o = stream(whole(wire));
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->prompt_tokens, 12 + 3 + 5);
  EXPECT_EQ(o.usage->completion_tokens, 7);
}

TEST(Stream, WithoutUsageThePromptIsTheHostsCountAndTheCompletionAnEstimate) {
  CallContext call = stream_call();
  call.prompt_tokens = 40;
  const std::string wire =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_2\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
      "\"delta\":{\"type\":\"text_delta\",\"text\":\"12345678\"}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  const Outcome o = stream(whole(wire), call);
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->prompt_tokens, 40);
  EXPECT_EQ(o.usage->completion_tokens, 2);  // 8 bytes / 4
  // No message_delta said why it stopped: the client still gets a finish_reason.
  const auto chunks = o.parsed();
  EXPECT_EQ(chunks[chunks.size() - 2]["choices"][0]["finish_reason"], "stop");
}

TEST(Stream, EveryStopReasonMapsToAFinishReason) {
  for (const auto& [stop, finish] :
       std::vector<std::pair<std::string, std::string>>{{"end_turn", "stop"},
                                                        {"max_tokens", "length"},
                                                        {"tool_use", "tool_calls"},
                                                        {"refusal", "content_filter"},
                                                        {"pause_turn", "stop"},
                                                        {"stop_sequence", "stop"},
                                                        {"brand_new", "stop"}}) {
    const std::string wire =
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\"}}\n\n"
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"" +
        stop + "\"},\"usage\":{\"output_tokens\":1}}\n\nevent: message_stop\ndata: {}\n\n";
    const auto chunks = stream(whole(wire)).parsed();
    ASSERT_EQ(chunks.size(), 3u) << stop;
    EXPECT_EQ(chunks[1]["choices"][0]["finish_reason"], finish) << stop;
  }
}

TEST(Stream, TheStreamOwnsItsCopyOfTheCallContext) {
  Provider p;
  Recorder out;
  auto call = std::make_unique<CallContext>(stream_call());
  call->alias = "alias-that-must-be-copied";
  call->request_id = "req_copied";
  Stream s(p, *call);
  call.reset();  // the context is borrowed only for on_stream_new
  ASSERT_EQ(s.feed(fixture("stream_text.sse"), out), MGW_OK);
  ASSERT_EQ(s.end(out), MGW_OK);
  ASSERT_FALSE(out.rec.chunks.empty());
  for (const auto& c : out.chunks()) {
    EXPECT_EQ(c["model"], "alias-that-must-be-copied");
  }
}

TEST(Stream, WithoutAMessageIdTheRequestIdNamesTheChunks) {
  const std::string wire =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  for (const auto& c : stream(whole(wire)).parsed()) {
    EXPECT_EQ(c["id"], "chatcmpl-req_test");
  }
}

TEST(Stream, NothingCountsAfterMessageStop) {
  const std::string wire =
      fixture("stream_text.sse") + fixture("stream_text.sse") + "event: error\ndata: oops\n\n";
  const Outcome o = stream(whole(wire));
  EXPECT_FALSE(o.error.has_value());
  EXPECT_EQ(o.events, kTextEvents);
}

}  // namespace
}  // namespace anthropic_test
