// Streamed chat: the SSE relay, its framing, usage and timing.
#include "harness/checks.h"
#include "harness/stack.h"

namespace it {
namespace {

using namespace std::chrono_literals;

class ChatStreamTest : public SharedStackTest<ChatStreamTest> {};

TEST_F(ChatStreamTest, RelaysChunksWithRequestIdThenUsageThenDone) {
  const std::string text = "stream-1 the quick  brown fox";
  const auto r = stream_chat(port(), key(), chat_body("house-chat", text, true));

  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type").rfind("text/event-stream", 0), 0u) << r.header("content-type");
  const std::string id = r.header("x-request-id");
  ASSERT_TRUE(is_request_id(id)) << id;
  EXPECT_TRUE(r.error.empty()) << r.error;

  const auto s = summarize(r.events);
  EXPECT_TRUE(s.all_json) << "every data event but [DONE] must be JSON";
  ASSERT_FALSE(s.chunks.empty());
  for (std::size_t i = 0; i < s.chunks.size(); ++i) {
    EXPECT_EQ(s.chunks[i]["request_id"], id) << s.raw[i];
    EXPECT_EQ(s.raw[i].rfind("{\"request_id\":\"" + id + "\"", 0), 0u) << s.raw[i];
    EXPECT_EQ(s.chunks[i]["object"], "chat.completion.chunk") << s.raw[i];
    EXPECT_EQ(s.chunks[i]["model"], "house-chat") << s.raw[i];
  }
  EXPECT_FALSE(s.error.has_value());
  EXPECT_EQ(s.content, fake_reply(user_messages(text)));
  EXPECT_EQ(s.content, "echo: stream-1 the quick brown fox");

  ASSERT_TRUE(s.usage_chunk.has_value()) << "no final chunk with choices [] and usage";
  EXPECT_EQ((*s.usage_chunk)["usage"], fake_usage(user_messages(text), s.content));
  // The usage chunk is the last one before [DONE].
  ASSERT_GE(r.events.size(), 2u);
  EXPECT_EQ(json::parse(r.events[r.events.size() - 2].data)["choices"], json::array());
  EXPECT_TRUE(s.done_last);
  EXPECT_EQ(s.done_count, 1);
}

TEST_F(ChatStreamTest, UpstreamIsAskedToIncludeUsage) {
  const auto r = stream_chat(port(), key(), chat_body("house-chat", "stream-upstream-marker-3", true));
  ASSERT_EQ(r.status, 200);
  const json sent = stack().fake->find_request("stream-upstream-marker-3");
  ASSERT_TRUE(sent.is_object()) << "the fake upstream never saw the request";
  EXPECT_EQ(sent["body"]["model"], "gpt-4o-mini");
  EXPECT_EQ(sent["body"]["stream"], true);
  EXPECT_EQ(sent["body"]["stream_options"]["include_usage"], true) << sent["body"].dump();
  EXPECT_EQ(sent["headers"]["authorization"], std::string("Bearer ") + kProviderKey);
}

TEST_F(ChatStreamTest, ClientStreamOptionsStillGetUsage) {
  json request = json::parse(chat_body("house-chat", "stream-options-marker-4", true));
  request["stream_options"] = {{"include_usage", false}};
  const auto r = stream_chat(port(), key(), request.dump());
  ASSERT_EQ(r.status, 200);
  const auto s = summarize(r.events);
  EXPECT_TRUE(s.usage_chunk.has_value());
  EXPECT_TRUE(s.done_last);
  const json sent = stack().fake->find_request("stream-options-marker-4");
  ASSERT_TRUE(sent.is_object());
  EXPECT_EQ(sent["body"]["stream_options"]["include_usage"], true);
}

TEST_F(ChatStreamTest, ChunksAreForwardedAsTheyArriveNotBuffered) {
  // The fake sleeps 300 ms before every event but the first: tok0 at ~300 ms,
  // tok2 at ~900 ms. A buffering relay would deliver them together.
  const auto r = stream_chat(port(), key(), chat_body("slow-stream", "timing", true));
  ASSERT_EQ(r.status, 200);
  const auto s = summarize(r.events);
  ASSERT_EQ(s.deltas.size(), 3u) << s.content;
  EXPECT_EQ(s.content, "tok0 tok1 tok2");
  const auto first = r.events[s.content_event_index.front()].at;
  const auto last = r.events[s.content_event_index.back()].at;
  EXPECT_GE(last - first, 500ms) << "first content at " << first.count() << " us, last at " << last.count()
                                 << " us";
  // And the first token is not held back until the end of the stream.
  EXPECT_GE(r.events.back().at - first, 900ms);
  EXPECT_TRUE(s.done_last);
}

}  // namespace
}  // namespace it
