// on_stream_*: SSE transcripts in, client chunks / usage / errors out.
#include "plugin_harness.h"

#include <gtest/gtest.h>

namespace openai_test {
namespace {

// What a stream produced, in a form two runs can be compared by.
struct Outcome {
  std::vector<std::string> events;
  std::vector<std::string> chunks;
  std::optional<mgw_usage> usage;
  std::optional<mgw::testing::RecordedError> error;
};

Outcome stream(const std::vector<std::string_view>& pieces) {
  Provider p;
  Recorder out;
  run_stream(p, stream_call(), pieces, out);
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
    }
    EXPECT_EQ(o.usage.has_value(), reference.usage.has_value()) << how;
    if (o.usage && reference.usage) {
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
      if (choice.contains("delta") && choice["delta"].contains("content")) {
        text += choice["delta"]["content"].get<std::string>();
      }
    }
  }
  return text;
}

std::vector<Json> parse_all(const std::vector<std::string>& chunks) {
  std::vector<Json> out;
  out.reserve(chunks.size());
  for (const auto& c : chunks) {
    out.push_back(Json::parse(c));
  }
  return out;
}

TEST(Stream, PassesChunksThroughWithTheAlias) {
  const std::string wire = fixture("stream_basic.sse");
  const Outcome o = stream_every_way(wire);
  ASSERT_FALSE(o.error.has_value());
  ASSERT_EQ(o.chunks.size(), 6u);
  const auto chunks = parse_all(o.chunks);
  for (const auto& c : chunks) {
    EXPECT_EQ(c["model"], "test-alias");
    EXPECT_EQ(c["id"], "chatcmpl-BwQ3K9xLmP2vT7nR4sY8");
    EXPECT_EQ(c["object"], "chat.completion.chunk");
  }
  EXPECT_EQ(content_of(chunks), "Hello! How can I help you today?");
  EXPECT_EQ(chunks[4]["choices"][0]["finish_reason"], "stop");
  // Everything but "model" is the vendor's, member order included.
  std::string first_wire = wire.substr(6, wire.find('\n') - 6);
  Json first = Json::parse(first_wire);
  first["model"] = "test-alias";
  EXPECT_EQ(o.chunks[0], first.dump());
}

TEST(Stream, ReportsTheVendorsUsageOnceAndAddsNoChunk) {
  const Outcome o = stream_every_way(fixture("stream_basic.sse"));
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->prompt_tokens, 9);
  EXPECT_EQ(o.usage->completion_tokens, 9);
  EXPECT_EQ(o.usage->total_tokens, 18);
  EXPECT_EQ(o.events,
            (std::vector<std::string>{"chunk", "chunk", "chunk", "chunk", "chunk", "usage", "chunk"}));
  const Json last = Json::parse(o.chunks.back());
  EXPECT_TRUE(last["choices"].empty());
  EXPECT_EQ(last["usage"]["total_tokens"], 18);
}

TEST(Stream, HandlesCrlfAndComments) {
  const std::string wire = fixture("stream_openrouter_crlf.sse");
  ASSERT_NE(wire.find("\r\n"), std::string::npos) << "the fixture lost its CRLF line ends";
  ASSERT_EQ(wire.find("\n\n"), std::string::npos);
  const Outcome o = stream_every_way(wire);
  ASSERT_FALSE(o.error.has_value()) << o.error->message;
  ASSERT_EQ(o.chunks.size(), 4u);  // the comments made none
  const auto chunks = parse_all(o.chunks);
  EXPECT_EQ(content_of(chunks), "Bonjour à tous.");
  for (const auto& c : chunks) {
    EXPECT_EQ(c["model"], "test-alias");
  }
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->total_tokens, 18);
}

TEST(Stream, JoinsMultiLineData) {
  const Outcome o = stream_every_way(fixture("stream_multiline.sse"));
  ASSERT_FALSE(o.error.has_value()) << o.error->message;
  const auto chunks = parse_all(o.chunks);
  ASSERT_EQ(chunks.size(), 3u);  // two events and the usage estimate
  EXPECT_EQ(content_of(chunks), "multi-line");
  EXPECT_EQ(chunks[0]["created"], 1741570400);
  EXPECT_EQ(chunks[0]["model"], "test-alias");
}

TEST(Stream, EstimatesUsageInAFinalChunkWhenTheVendorSentNone) {
  // "Grüße" + " aus Köln" + "!" = 18 bytes → ceil(18 / 4) = 5 tokens.
  const Outcome o = stream_every_way(fixture("stream_no_usage.sse"));
  ASSERT_FALSE(o.error.has_value());
  ASSERT_EQ(o.chunks.size(), 4u);
  EXPECT_EQ(o.events, (std::vector<std::string>{"chunk", "chunk", "chunk", "usage", "chunk"}));
  ASSERT_TRUE(o.usage.has_value());
  EXPECT_EQ(o.usage->prompt_tokens, 0);
  EXPECT_EQ(o.usage->completion_tokens, 5);
  EXPECT_EQ(o.usage->total_tokens, 5);
  EXPECT_EQ(Json::parse(o.chunks.back()),
            Json::parse(R"({"id":"cmpl-a41f09c2e7","object":"chat.completion.chunk",
      "created":1741570500,"model":"test-alias","choices":[],
      "usage":{"prompt_tokens":0,"completion_tokens":5,"total_tokens":5}})"));
}

TEST(Stream, TheEstimateTakesTheHostsPromptCountWhenTheVendorSentNone) {
  // An OpenAI-compatible upstream that streams no usage: the prompt is the
  // host's count, not 0 (as the anthropic and gemini providers do).
  Provider p;
  Recorder out;
  CallContext call = stream_call();
  call.prompt_tokens = 42;
  run_stream(p, call, whole(fixture("stream_no_usage.sse")), out);
  ASSERT_TRUE(out.rec.usage.has_value());
  EXPECT_EQ(out.rec.usage->prompt_tokens, 42);
  EXPECT_EQ(out.rec.usage->completion_tokens, 5);
  EXPECT_EQ(out.rec.usage->total_tokens, 47);
  EXPECT_EQ(Json::parse(out.rec.chunks.back())["usage"],
            Json::parse(R"({"prompt_tokens":42,"completion_tokens":5,"total_tokens":47})"));
}

TEST(Stream, TheVendorsUsageWinsOverTheHostsPromptCount) {
  Provider p;
  Recorder out;
  CallContext call = stream_call();
  call.prompt_tokens = 42;
  run_stream(p, call, whole(fixture("stream_basic.sse")), out);
  ASSERT_TRUE(out.rec.usage.has_value());
  EXPECT_EQ(out.rec.usage->prompt_tokens, 9);
}

TEST(Stream, TheEstimatedUsageChunkHasTheSameShapeAsEveryProviders) {
  // All three providers build it from the SDK's ChunkEnvelope, members in
  // OpenAI's order, and none sends a null system_fingerprint (the schema
  // makes it a string when present).
  const Outcome o = stream(whole("data: [DONE]\n\n"));
  ASSERT_EQ(o.chunks.size(), 1u);
  EXPECT_EQ(o.chunks[0], R"({"id":"chatcmpl-req_test","object":"chat.completion.chunk","created":1700000000,)"
                         R"("model":"test-alias","choices":[],)"
                         R"("usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}})");
}

TEST(Stream, RemovesTheVendorsRequestId) {
  const Outcome o = stream(whole(fixture("stream_no_usage.sse")));
  for (const auto& c : parse_all(o.chunks)) {
    EXPECT_FALSE(c.contains("request_id")) << c.dump();
  }
}

TEST(Stream, ATranscriptWithOnlyDoneGetsAnEstimateChunkWithAFallbackId) {
  const Outcome o = stream(whole("data: [DONE]\n\n"));
  ASSERT_EQ(o.chunks.size(), 1u);
  EXPECT_EQ(Json::parse(o.chunks[0]),
            Json::parse(R"({"id":"chatcmpl-req_test","object":"chat.completion.chunk",
      "created":1700000000,"model":"test-alias","choices":[],
      "usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}})"));
}

TEST(Stream, MissingDoneIsAnErrorAtTheEnd) {
  const Outcome o = stream_every_way(fixture("stream_truncated.sse"));
  EXPECT_EQ(o.events, (std::vector<std::string>{"chunk", "chunk", "chunk", "error"}));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->http_status, 502);
  EXPECT_EQ(o.error->code, "provider_failed");
  EXPECT_EQ(o.error->message, "upstream stream ended before it was complete");
  EXPECT_FALSE(o.error->retryable);
  EXPECT_FALSE(o.usage.has_value());  // no estimate for an answer that never finished
}

TEST(Stream, AnErrorEventStopsTheStream) {
  const Outcome o = stream_every_way(fixture("stream_error_midway.sse"));
  // Three chunks before the error; nothing after it, not even at the end.
  EXPECT_EQ(o.events, (std::vector<std::string>{"chunk", "chunk", "chunk", "error"}));
  EXPECT_EQ(content_of(parse_all(o.chunks)), "Hello!");
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->http_status, 502);
  EXPECT_EQ(o.error->code, "provider_failed");
  EXPECT_EQ(o.error->message,
            "upstream provider failed during the stream: The server had an error while processing your "
            "request (key "
            "sk-***). Sorry about that!");
  EXPECT_FALSE(o.error->retryable);  // the client already has bytes
}

TEST(Stream, AnErrorEventBeforeAnyChunkIsRetryable) {
  const Outcome o = stream(whole(R"(data: {"error":{"message":"Overloaded","type":"server_error"}})"
                                 "\n\ndata: [DONE]\n\n"));
  EXPECT_EQ(o.events, std::vector<std::string>{"error"});
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->message, "upstream provider failed during the stream: Overloaded");
  EXPECT_TRUE(o.error->retryable);
}

TEST(Stream, ANamedErrorEventStopsTheStream) {
  const Outcome o = stream(whole("event: error\ndata: {\"message\":\"quota gone\"}\n\ndata: [DONE]\n\n"));
  EXPECT_EQ(o.events, std::vector<std::string>{"error"});
  EXPECT_EQ(o.error->message, "upstream provider failed during the stream: quota gone");
}

TEST(Stream, AnInvalidEventStopsTheStream) {
  const Outcome o = stream_every_way(fixture("stream_invalid_json.sse"));
  EXPECT_EQ(o.events, (std::vector<std::string>{"chunk", "chunk", "error"}));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->http_status, 502);
  EXPECT_EQ(o.error->code, "provider_failed");
  EXPECT_EQ(o.error->message, "upstream sent an invalid stream event");
  EXPECT_FALSE(o.error->retryable);
  EXPECT_EQ(o.error->message.find("oops"), std::string::npos);
}

TEST(Stream, AnEventThatIsNotAnObjectIsInvalid) {
  const Outcome o = stream(whole("data: 42\n\ndata: [DONE]\n\n"));
  EXPECT_EQ(o.events, std::vector<std::string>{"error"});
  EXPECT_EQ(o.error->message, "upstream sent an invalid stream event");
}

TEST(Stream, NothingCountsAfterDone) {
  const std::string wire = fixture("stream_basic.sse") + fixture("stream_basic.sse") + "data: not json\n\n";
  const Outcome o = stream(whole(wire));
  EXPECT_FALSE(o.error.has_value());
  EXPECT_EQ(o.chunks.size(), 6u);
}

TEST(Stream, NothingIsEmittedAfterAnErrorEvenIfFedMore) {
  Provider p;
  Recorder out;
  Stream s(p, stream_call());
  ASSERT_EQ(s.feed("data: {oops\n\n", out), MGW_OK);
  ASSERT_EQ(s.feed(fixture("stream_basic.sse"), out), MGW_OK);
  ASSERT_EQ(s.end(out), MGW_OK);
  EXPECT_EQ(out.events, std::vector<std::string>{"error"});
}

TEST(Stream, TheStreamOwnsItsCopyOfTheCallContext) {
  Provider p;
  Recorder out;
  auto call = std::make_unique<CallContext>(stream_call());
  call->alias = "alias-that-must-be-copied";
  Stream s(p, *call);
  call.reset();  // the context is borrowed only for on_stream_new
  ASSERT_EQ(s.feed(fixture("stream_no_usage.sse"), out), MGW_OK);
  ASSERT_EQ(s.end(out), MGW_OK);
  for (const auto& c : out.chunks()) {
    EXPECT_EQ(c["model"], "alias-that-must-be-copied");
  }
}

}  // namespace
}  // namespace openai_test
