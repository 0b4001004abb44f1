// on_stream_*: Gemini alt=sse transcripts in, client chunks / usage / errors out.
#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace gemini_test {
namespace {

// What a stream produced, in a form two runs can be compared by.
struct Outcome {
  std::vector<std::string> events;
  std::vector<std::string> chunks;
  std::optional<mgw_usage> usage;
  std::optional<mgw::testing::RecordedError> error;

  std::vector<Json> parsed() const {
    std::vector<Json> out;
    for (const auto& c : chunks) {
      out.push_back(Json::parse(c));
    }
    return out;
  }
};

Outcome stream(const std::vector<std::string_view>& pieces, const CallContext& call = stream_call()) {
  Provider p;
  Recorder out;
  run_stream(p, call, pieces, out);
  return Outcome{out.events, out.rec.chunks, out.rec.usage, out.rec.error};
}

// The same transcript fed whole, byte by byte and in 50 random splits must
// give the very same output.
Outcome stream_every_way(const std::string& transcript) {
  Outcome reference = stream(whole(transcript));
  auto same = [&](const Outcome& o, const std::string& how) {
    EXPECT_EQ(o.events, reference.events) << how;
    EXPECT_EQ(o.chunks, reference.chunks) << how;
    EXPECT_EQ(o.error.has_value(), reference.error.has_value()) << how;
    if (o.error && reference.error) {
      EXPECT_EQ(o.error->message, reference.error->message) << how;
      EXPECT_EQ(o.error->retryable, reference.error->retryable) << how;
    }
    EXPECT_EQ(o.usage.has_value(), reference.usage.has_value()) << how;
    if (o.usage && reference.usage) {
      EXPECT_EQ(o.usage->prompt_tokens, reference.usage->prompt_tokens) << how;
      EXPECT_EQ(o.usage->completion_tokens, reference.usage->completion_tokens) << how;
      EXPECT_EQ(o.usage->total_tokens, reference.usage->total_tokens) << how;
    }
  };
  same(stream(byte_by_byte(transcript)), "byte by byte");
  for (unsigned seed = 1; seed <= 50; ++seed) {
    same(stream(random_pieces(transcript, seed)), "random split, seed " + std::to_string(seed));
  }
  return reference;
}

std::string content_of(const std::vector<Json>& chunks) {
  std::string text;
  for (const auto& c : chunks) {
    for (const auto& choice : c["choices"]) {
      if (choice["delta"].contains("content") && choice["delta"]["content"].is_string()) {
        text += choice["delta"]["content"].get<std::string>();
      }
    }
  }
  return text;
}

std::string without_crlf(std::string s) {
  std::string out;
  for (char c : s) {
    if (c != '\r') {
      out.push_back(c);
    }
  }
  return out;
}

TEST(Stream, EachEventBecomesOneChunkAtOnce) {
  const std::string wire = fixture("stream_text.sse");
  ASSERT_NE(wire.find("\r\n\r\n"), std::string::npos) << "the fixture lost Gemini's CRLF framing";
  const Outcome o = stream_every_way(wire);
  ASSERT_FALSE(o.error.has_value()) << o.error->message;
  const auto chunks = o.parsed();
  ASSERT_EQ(chunks.size(), 4u);  // three events and the usage chunk
  EXPECT_EQ(chunks[0],
            Json::parse(R"({"id": "chatcmpl-0EeIaOr3Ls-RmecPxZ6B0Qg", "object": "chat.completion.chunk",
    "created": 1700000000, "model": "test-alias",     "choices": [{"index": 0, "delta": {"role": "assistant", "content": "The"}, "finish_reason": null}],
    "usage": null})"));
  EXPECT_EQ(chunks[1]["choices"], Json::parse(R"([{"index": 0, "delta": {"content": " quick brown fox jumps"},
    "finish_reason": null}])"));
  EXPECT_EQ(chunks[2]["choices"],
            Json::parse(R"([{"index": 0, "delta": {"content": " over the lazy dog. Ça va ?"},
    "finish_reason": "stop"}])"));
  EXPECT_EQ(content_of(chunks), "The quick brown fox jumps over the lazy dog. Ça va ?");
}

TEST(Stream, ChunksAreEmittedAsEventsArriveNotAtTheEnd) {
  Provider p;
  Recorder out;
  Stream s(p, stream_call());
  const std::string wire = fixture("stream_text.sse");
  const std::size_t first_event_end = wire.find("\r\n\r\n") + 4;
  ASSERT_EQ(s.feed(wire.substr(0, first_event_end), out), MGW_OK);
  EXPECT_EQ(out.events, std::vector<std::string>{"chunk"});
}

TEST(Stream, ReportsTheLatestUsageAtTheEndInAFinalChunk) {
  const Outcome o = stream_every_way(fixture("stream_text.sse"));
  EXPECT_EQ(o.events, (std::vector<std::string>{"chunk", "chunk", "chunk", "usage", "chunk"}));
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->struct_size, sizeof(mgw_usage));
  EXPECT_EQ(o.usage->prompt_tokens, 8);
  EXPECT_EQ(o.usage->completion_tokens, 14);
  EXPECT_EQ(o.usage->total_tokens, 22);
  EXPECT_EQ(Json::parse(o.chunks.back()), Json::parse(R"({"id": "chatcmpl-0EeIaOr3Ls-RmecPxZ6B0Qg",
    "object": "chat.completion.chunk", "created": 1700000000, "model": "test-alias",
    "choices": [],
    "usage": {"prompt_tokens": 8, "completion_tokens": 14, "total_tokens": 22}})"));
}

TEST(Stream, NoChunkCarriesARequestId) {
  for (const auto& c : stream(whole(fixture("stream_text.sse"))).parsed()) {
    EXPECT_FALSE(c.contains("request_id")) << c.dump();
  }
}

TEST(Stream, LineFeedsCommentsAndMultiLineDataDecodeTheSame) {
  const std::string wire = fixture("stream_comments_lf.sse");
  ASSERT_EQ(wire.find('\r'), std::string::npos);
  const Outcome o = stream_every_way(wire);
  ASSERT_FALSE(o.error.has_value()) << o.error->message;
  const auto chunks = o.parsed();
  ASSERT_EQ(chunks.size(), 3u);  // the comments made none
  EXPECT_EQ(content_of(chunks), "multi-line");
  EXPECT_EQ(chunks[0]["id"], "chatcmpl-lf-1");
  EXPECT_EQ(chunks[1]["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(o.usage->total_tokens, 5);
}

TEST(Stream, CrlfAndLfFramingGiveTheSameChunks) {
  const std::string crlf = fixture("stream_text.sse");
  EXPECT_EQ(stream(whole(crlf)).chunks, stream(whole(without_crlf(crlf))).chunks);
}

TEST(Stream, FunctionCallsArriveWholeWithRunningIndexes) {
  const Outcome o = stream_every_way(fixture("stream_function_call.sse"));
  ASSERT_FALSE(o.error.has_value()) << o.error->message;
  const auto chunks = o.parsed();
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0]["choices"], Json::parse(R"([{"index": 0, "delta": {"role": "assistant", "tool_calls": [
    {"index": 0, "id": "call_0_0", "type": "function",
     "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\",\"unit\":\"celsius\"}"}}]},
    "finish_reason": null}])"));
  // Indexes and ids run on across events, so the client never merges two calls.
  EXPECT_EQ(chunks[1]["choices"], Json::parse(R"([{"index": 0, "delta": {"tool_calls": [
    {"index": 1, "id": "call_0_1", "type": "function",
     "function": {"name": "get_weather", "arguments": "{\"city\":\"Lyon\"}"}},
    {"index": 2, "id": "call_0_2", "type": "function", "function": {"name": "list_cities", "arguments": "{}"}}]},
    "finish_reason": "tool_calls"}])"));
  EXPECT_EQ(o.usage->prompt_tokens, 71);
  EXPECT_EQ(o.usage->completion_tokens, 97);  // 31 + 66 thinking
  EXPECT_EQ(Json::parse(o.chunks.back())["usage"],
            Json::parse(R"({"prompt_tokens": 71, "completion_tokens": 97,
    "total_tokens": 168, "completion_tokens_details": {"reasoning_tokens": 66}})"));
}

TEST(Stream, AFinishAfterToolCallsInEarlierEventsIsToolCalls) {
  const std::string wire =
      "data: "
      "{\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{}}}]}}]}\n\n"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}]},\"finishReason\":\"STOP\"}]}\n\n";
  const auto chunks = stream(whole(wire)).parsed();
  EXPECT_EQ(chunks[1]["choices"][0]["finish_reason"], "tool_calls");
}

TEST(Stream, GeminisOwnFunctionCallIdIsKept) {
  const std::string wire =
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"id\":\"fc_1\",\"name\":\"f\"}}]},"
      "\"finishReason\":\"STOP\"}]}\n\n";
  const auto chunks = stream(whole(wire)).parsed();
  EXPECT_EQ(chunks[0]["choices"][0]["delta"]["tool_calls"][0]["id"], "fc_1");
}

TEST(Stream, ThoughtsAreLeftOutButCountedAsCompletion) {
  const Outcome o = stream_every_way(fixture("stream_thoughts.sse"));
  ASSERT_FALSE(o.error.has_value());
  const auto chunks = o.parsed();
  ASSERT_EQ(chunks.size(), 4u);
  // The thought-only event still opens the answer, with the role only.
  EXPECT_EQ(chunks[0]["choices"][0]["delta"], Json::parse(R"({"role": "assistant"})"));
  EXPECT_EQ(chunks[1]["choices"][0]["delta"], Json::parse(R"({"content": "17 + 25 = 42."})"));
  EXPECT_EQ(chunks[2]["choices"][0]["delta"], Json::object());  // the empty text adds nothing
  EXPECT_EQ(chunks[2]["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(content_of(chunks).find("Adding"), std::string::npos);
  EXPECT_EQ(Json::parse(o.chunks.back())["usage"],
            Json::parse(R"({"prompt_tokens": 12, "completion_tokens": 1030,
    "total_tokens": 1042, "prompt_tokens_details": {"cached_tokens": 4},
    "completion_tokens_details": {"reasoning_tokens": 1021}})"));
}

TEST(Stream, UsageWithoutCountsDoesNotHideTheFinalCounts) {
  // Vertex sends {"trafficType": …} alone on early events; the last one counts.
  const Outcome o = stream_every_way(fixture("stream_vertex_signature.sse"));
  ASSERT_FALSE(o.error.has_value());
  EXPECT_EQ(content_of(o.parsed()), "Hello! How can I help you today?");
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->prompt_tokens, 1);
  EXPECT_EQ(o.usage->completion_tokens, 9);
  EXPECT_EQ(o.usage->total_tokens, 10);
}

TEST(Stream, ABlockedPromptEndsWithContentFilter) {
  const Outcome o = stream_every_way(fixture("stream_blocked.sse"));
  ASSERT_FALSE(o.error.has_value());
  EXPECT_EQ(o.events, (std::vector<std::string>{"chunk", "usage", "chunk"}));
  EXPECT_EQ(o.parsed()[0]["choices"],
            Json::parse(R"([{"index": 0, "delta": {"role": "assistant", "content": null},
    "finish_reason": "content_filter"}])"));
  EXPECT_EQ(o.usage->prompt_tokens, 7);
  EXPECT_EQ(o.usage->total_tokens, 7);
}

TEST(Stream, FinishReasonsMapAsInWholeResponses) {
  for (const auto& [gemini, openai] :
       std::vector<std::pair<std::string, std::string>>{{"MAX_TOKENS", "length"},
                                                        {"SAFETY", "content_filter"},
                                                        {"RECITATION", "content_filter"},
                                                        {"OTHER", "stop"}}) {
    const std::string wire =
        "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"x\"}]},\"finishReason\":\"" + gemini +
        "\"}]}\n\n";
    const Outcome o = stream(whole(wire));
    ASSERT_FALSE(o.error.has_value()) << gemini;
    EXPECT_EQ(o.parsed()[0]["choices"][0]["finish_reason"], openai) << gemini;
  }
}

TEST(Stream, EachCandidateIsAChoiceAndAllMustFinish) {
  const std::string both =
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]}},"
      "{\"index\":1,\"content\":{\"parts\":[{\"text\":\"b\"}]}}]}\n\n"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"c\"}]},\"finishReason\":\"STOP\"}]}\n\n";
  const Outcome cut = stream(whole(both));
  const auto chunks = cut.parsed();
  ASSERT_GE(chunks.size(), 2u);
  EXPECT_EQ(chunks[0]["choices"][1],
            Json::parse(R"({"index": 1, "delta": {"role": "assistant", "content": "b"},
    "finish_reason": null})"));
  // Candidate 1 never finished: the answer is incomplete.
  ASSERT_TRUE(cut.error.has_value());
  EXPECT_EQ(cut.error->message, "upstream stream ended before it was complete");

  const Outcome done = stream(whole(
      both +
      "data: "
      "{\"candidates\":[{\"index\":1,\"content\":{\"parts\":[]},\"finishReason\":\"MAX_TOKENS\"}]}\n\n"));
  EXPECT_FALSE(done.error.has_value());
  EXPECT_EQ(done.parsed()[2]["choices"][0]["finish_reason"], "length");
}

TEST(Stream, AnEventWithoutCandidatesEmitsNothing) {
  const std::string wire =
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]},\"finishReason\":\"STOP\"}]}\n\n"
      "data: "
      "{\"usageMetadata\":{\"promptTokenCount\":2,\"candidatesTokenCount\":1,\"totalTokenCount\":3}}\n\n";
  const Outcome o = stream(whole(wire));
  EXPECT_EQ(o.events, (std::vector<std::string>{"chunk", "usage", "chunk"}));
  EXPECT_EQ(o.usage->total_tokens, 3);
}

TEST(Stream, WithoutAResponseIdTheIdComesFromTheRequestId) {
  const Outcome o = stream(whole(
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]},\"finishReason\":\"STOP\"}]}\n\n"));
  for (const auto& c : o.parsed()) {
    EXPECT_EQ(c["id"], "chatcmpl-req_test");
  }
}

TEST(Stream, EstimatesUsageWhenGeminiSentNone) {
  // "Grüße" (7 bytes) + " aus Köln!" (11) = 18 bytes → 5 tokens; the prompt is the host's count.
  CallContext call = stream_call();
  call.prompt_tokens = 9;
  const std::string wire =
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Grüße\"}]}}]}\n\n"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\" aus "
      "Köln!\"}]},\"finishReason\":\"STOP\"}]}\n\n";
  const Outcome o = stream(whole(wire), call);
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->prompt_tokens, 9);
  EXPECT_EQ(o.usage->completion_tokens, 5);
  EXPECT_EQ(o.usage->total_tokens, 14);
  EXPECT_EQ(Json::parse(o.chunks.back())["usage"],
            Json::parse(R"({"prompt_tokens": 9, "completion_tokens": 5, "total_tokens": 14})"));
}

TEST(Stream, EndingBeforeAFinishReasonIsAnError) {
  const Outcome o = stream_every_way(fixture("stream_truncated.sse"));
  EXPECT_EQ(o.events, (std::vector<std::string>{"chunk", "chunk", "error"}));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->http_status, 502);
  EXPECT_EQ(o.error->code, "provider_failed");
  EXPECT_EQ(o.error->message, "upstream stream ended before it was complete");
  EXPECT_FALSE(o.error->retryable);
  EXPECT_FALSE(o.usage.has_value());  // no usage for an answer that never finished
}

TEST(Stream, EndingInsideTheFinalEventIsAnError) {
  const std::string wire = fixture("stream_text.sse");
  const Outcome o = stream(whole(wire.substr(0, wire.size() - 40)));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->message, "upstream stream ended before it was complete");
  EXPECT_EQ(o.chunks.size(), 2u);
}

TEST(Stream, AnEmptyBodyIsAnError) {
  const Outcome o = stream(whole(""));
  EXPECT_EQ(o.events, std::vector<std::string>{"error"});
  EXPECT_EQ(o.error->message, "upstream stream ended before it was complete");
  EXPECT_FALSE(o.error->retryable);
}

TEST(Stream, AnErrorEventStopsTheStream) {
  const Outcome o = stream_every_way(fixture("stream_error_midway.sse"));
  EXPECT_EQ(o.events, (std::vector<std::string>{"chunk", "chunk", "error"}));
  EXPECT_EQ(content_of(o.parsed()), "The quick brown fox jumps");
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->http_status, 502);
  EXPECT_EQ(o.error->code, "provider_failed");
  EXPECT_EQ(o.error->message,
            "upstream provider failed during the stream: The model is overloaded. Please try again later. "
            "(key AIza***)");
  EXPECT_FALSE(o.error->retryable);  // the client already has bytes
}

TEST(Stream, AnErrorEventBeforeAnyChunkIsRetryable) {
  for (const char* event :
       {R"({"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}})",
        R"([{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}])"}) {
    const Outcome o = stream(whole("data: " + std::string(event) + "\n\n"));
    EXPECT_EQ(o.events, std::vector<std::string>{"error"}) << event;
    ASSERT_TRUE(o.error.has_value());
    EXPECT_EQ(o.error->http_status, 502);
    EXPECT_EQ(o.error->message, "upstream provider failed during the stream: Resource exhausted");
    EXPECT_TRUE(o.error->retryable);
  }
}

TEST(Stream, NonJsonDataStopsTheStreamWithoutEchoingIt) {
  const Outcome o = stream_every_way(fixture("stream_invalid_json.sse"));
  EXPECT_EQ(o.events, (std::vector<std::string>{"chunk", "error"}));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->http_status, 502);
  EXPECT_EQ(o.error->code, "provider_failed");
  EXPECT_EQ(o.error->message, "upstream sent an invalid stream event");
  EXPECT_FALSE(o.error->retryable);
  EXPECT_EQ(o.error->message.find("oops"), std::string::npos);
}

TEST(Stream, NonJsonDataBeforeAnyChunkIsRetryable) {
  const Outcome o = stream(whole("data: <html>\n\n"));
  EXPECT_EQ(o.events, std::vector<std::string>{"error"});
  EXPECT_TRUE(o.error->retryable);
}

TEST(Stream, AnEventThatIsNotAnObjectIsInvalid) {
  const Outcome o = stream(whole("data: 42\n\n"));
  EXPECT_EQ(o.events, std::vector<std::string>{"error"});
  EXPECT_EQ(o.error->message, "upstream sent an invalid stream event");
}

TEST(Stream, ADoneMarkerIsNotGeminis) {
  // Gemini sends no [DONE]; one from a confused proxy is not JSON.
  const Outcome o = stream(whole(fixture("stream_text.sse") + "data: [DONE]\n\n"));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->message, "upstream sent an invalid stream event");
  EXPECT_FALSE(o.error->retryable);
}

TEST(Stream, NothingIsEmittedAfterAnErrorEvenIfFedMore) {
  Provider p;
  Recorder out;
  Stream s(p, stream_call());
  ASSERT_EQ(s.feed("data: {oops\n\n", out), MGW_OK);
  ASSERT_EQ(s.feed(fixture("stream_text.sse"), out), MGW_OK);
  ASSERT_EQ(s.end(out), MGW_OK);
  EXPECT_EQ(out.events, std::vector<std::string>{"error"});
}

TEST(Stream, EndingTwiceReportsOnce) {
  Provider p;
  Recorder out;
  Stream s(p, stream_call());
  ASSERT_EQ(s.feed(fixture("stream_text.sse"), out), MGW_OK);
  ASSERT_EQ(s.end(out), MGW_OK);
  ASSERT_EQ(s.end(out), MGW_OK);
  EXPECT_EQ(out.count("usage"), 1);
  EXPECT_EQ(out.count("chunk"), 4);
}

TEST(Stream, TheStreamOwnsItsCopyOfTheCallContext) {
  Provider p;
  Recorder out;
  auto call = std::make_unique<CallContext>(stream_call());
  call->alias = "alias-that-must-be-copied";
  call->request_id = "req_copied";
  Stream s(p, *call);
  call.reset();  // the context is borrowed only for on_stream_new
  ASSERT_EQ(
      s.feed("data: "
             "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]},\"finishReason\":\"STOP\"}]}\n\n",
             out),
      MGW_OK);
  ASSERT_EQ(s.end(out), MGW_OK);
  for (const auto& c : out.chunks()) {
    EXPECT_EQ(c["model"], "alias-that-must-be-copied");
    EXPECT_EQ(c["id"], "chatcmpl-req_copied");
  }
}

}  // namespace
}  // namespace gemini_test
