// on_stream_*: broken, truncated and failing Anthropic streams.
#include "stream_support.h"

#include <gtest/gtest.h>

namespace anthropic_test {
namespace {

void expect_provider_failed(const Outcome& o, std::string_view message, bool retryable) {
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->http_status, 502);
  EXPECT_EQ(o.error->code, "provider_failed");
  EXPECT_EQ(o.error->message, message);
  EXPECT_EQ(o.error->retryable, retryable);
  EXPECT_EQ(o.events.back(), "error");
}

TEST(StreamErrors, ABodyEndingBeforeMessageStopIsAnError) {
  const Outcome o = stream_every_way(fixture("stream_truncated.sse"));
  EXPECT_EQ(o.events, (std::vector<std::string>{"chunk", "chunk", "error"}));
  EXPECT_EQ(content_of(o.parsed()), "Once upon");
  // Not retryable: the client already holds part of the answer.
  expect_provider_failed(o, "upstream stream ended before it was complete", false);
  EXPECT_FALSE(o.usage.has_value());
}

TEST(StreamErrors, AnEmptyBodyIsTruncated) {
  expect_provider_failed(stream(whole("")), "upstream stream ended before it was complete", false);
}

TEST(StreamErrors, AnErrorEventMidwayStopsTheStream) {
  const Outcome o = stream_every_way(fixture("stream_error_midway.sse"));
  // role and "Hello!" before it; nothing after it, not even at the end.
  EXPECT_EQ(o.events, (std::vector<std::string>{"chunk", "chunk", "error"}));
  EXPECT_EQ(content_of(o.parsed()), "Hello!");
  expect_provider_failed(o, "upstream provider failed during the stream: Overloaded", false);
  EXPECT_FALSE(o.usage.has_value());
}

TEST(StreamErrors, AnOverloadedErrorBeforeAnyChunkIsRetryable) {
  const Outcome o = stream_every_way(fixture("stream_error_first.sse"));
  EXPECT_EQ(o.events, std::vector<std::string>{"error"});
  expect_provider_failed(o, "upstream provider failed during the stream: Overloaded", true);
}

TEST(StreamErrors, ARequestErrorBeforeAnyChunkIsNotRetryable) {
  const Outcome o = stream(
      whole("event: error\ndata: "
            "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad\"}}\n\n"));
  expect_provider_failed(o, "upstream provider failed during the stream: bad", false);
}

TEST(StreamErrors, AnErrorEventThatIsNotJsonStillStopsTheStream) {
  const Outcome o = stream(whole("event: error\ndata: <html>sk-ant-api03-Leak0In1Error2Event3</html>\n\n"));
  expect_provider_failed(o, "upstream provider failed during the stream", true);
}

TEST(StreamErrors, AnErrorEventsSecretsAreMasked) {
  const Outcome o = stream(
      whole("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"key " +
            std::string(kApiKey) + " and Bearer abc.def.ghi failed\"}}\n\n"));
  expect_provider_failed(o, "upstream provider failed during the stream: key *** and Bearer *** failed",
                         true);
}

TEST(StreamErrors, NonJsonDataInAKnownEventIsAnInvalidEvent) {
  const Outcome o = stream_every_way(fixture("stream_invalid_json.sse"));
  EXPECT_EQ(o.events, (std::vector<std::string>{"chunk", "chunk", "error"}));
  expect_provider_failed(o, "upstream sent an invalid stream event", false);
  EXPECT_EQ(o.error->message.find("oops"), std::string::npos);
}

TEST(StreamErrors, AnInvalidFirstEventIsRetryable) {
  expect_provider_failed(stream(whole("event: message_start\ndata: {not json\n\n")),
                         "upstream sent an invalid stream event", true);
  expect_provider_failed(stream(whole("event: content_block_delta\ndata: 42\n\n")),
                         "upstream sent an invalid stream event", true);
}

TEST(StreamErrors, NothingIsEmittedAfterAnErrorEvenIfFedMore) {
  Provider p;
  Recorder out;
  Stream s(p, stream_call());
  ASSERT_EQ(s.feed("event: message_start\ndata: {oops\n\n", out), MGW_OK);
  ASSERT_EQ(s.feed(fixture("stream_text.sse"), out), MGW_OK);
  ASSERT_EQ(s.end(out), MGW_OK);
  EXPECT_EQ(out.events, std::vector<std::string>{"error"});
}

TEST(StreamErrors, EndAfterACompleteStreamAddsNothing) {
  Provider p;
  Recorder out;
  Stream s(p, stream_call());
  ASSERT_EQ(s.feed(fixture("stream_text.sse"), out), MGW_OK);
  const auto before = out.events;
  ASSERT_EQ(s.end(out), MGW_OK);
  ASSERT_EQ(s.end(out), MGW_OK);
  EXPECT_EQ(out.events, before);
}

TEST(StreamErrors, AnOverlongLineBreaksTheStream) {
  Provider p;
  Recorder out;
  Stream s(p, stream_call());
  ASSERT_EQ(s.feed("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n", out),
            MGW_OK);
  const std::string line = "data: " + std::string(mgw::SseDecoder::kMaxLine + 10, 'x');
  ASSERT_EQ(s.feed(line, out), MGW_OK);
  ASSERT_EQ(s.end(out), MGW_OK);
  EXPECT_EQ(out.events, (std::vector<std::string>{"chunk", "error"}));
  ASSERT_TRUE(out.rec.error.has_value());
  EXPECT_EQ(out.rec.error->message, "upstream sent a stream line longer than the gateway accepts");
  EXPECT_FALSE(out.rec.error->retryable);
}

}  // namespace
}  // namespace anthropic_test
