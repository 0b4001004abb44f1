// Bounds on the upstream side, with fake-upstream faults that go past them:
// interim 100 responses forever (they count against the first-byte timeout,
// and a client's hang-up ends the upstream call), a stream longer than
// max_response_bytes, an SSE line longer than max_sse_line_bytes, and a
// response framed with both Content-Length and Transfer-Encoding.
#include "edge_socket.h"
#include "harness/checks.h"
#include "harness/stack.h"

#include <future>
#include <thread>

namespace it {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kMaxResponseBytes = 65536;
constexpr std::size_t kMaxSseLineBytes = 4096;

class UpstreamBoundsTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    try {
      stack_ = std::make_unique<Stack>();
      stack_->fake = std::make_unique<FakeUpstream>(kProviderKey);
      const std::string fake = "http://127.0.0.1:" + std::to_string(stack_->fake->port());
      GatewayOptions o;
      o.upstream_port = stack_->fake->port();
      o.timeout_ms = 1500;  // first byte
      o.extra_provider_yaml = "    max_response_bytes: " + std::to_string(kMaxResponseBytes) +
                              "\n    max_sse_line_bytes: " + std::to_string(kMaxSseLineBytes) + "\n";
      // A provider that waits long for a first byte: only the client's
      // hang-up can end a call to it early.
      o.extra_providers_yaml = "  patient:\n    plugin: openai\n    base_url: \"" + fake +
                               "/v1\"\n    api_key: \"${FAKE_KEY}\"\n    first_byte_timeout_ms: 30000\n"
                               "    timeout_ms: 60000\n";
      o.catalog.push_back({"interim-forever", "openai", "gpt-4o-mini+interim_forever"});
      o.catalog.push_back({"interim-patient", "patient", "gpt-4o-mini+interim_forever"});
      o.catalog.push_back({"flood", "openai", "gpt-4o-mini+flood_bytes=4000000"});
      o.catalog.push_back({"long-line", "openai", "gpt-4o-mini+long_line=4194304"});
      o.catalog.push_back({"both-lengths", "openai", "gpt-4o-mini+both_lengths"});
      stack_->gateway = std::make_unique<Gateway>(std::move(o));
      stack_->gateway->create_tenant("acme");
      stack_->key = stack_->gateway->create_key("acme");
      stack_->gateway->start();
    } catch (const std::exception& e) {
      stack_.reset();
      setup_error_ = e.what();
    }
  }
  static void TearDownTestSuite() { stack_.reset(); }

 protected:
  void SetUp() override { ASSERT_NE(stack_, nullptr) << "suite setup failed: " << setup_error_; }
  static int port() { return stack_->port(); }
  static const std::string& key() { return stack_->key.key; }

  struct Timed {
    HttpResponse response;
    EdgeClock::duration took{};
    std::string error;  // the client gave up (timeout, reset)
  };
  // A chat call that waits at most 8 s for the gateway.
  static Timed timed_chat(const std::string& alias, bool stream) {
    HttpRequest req;
    req.body = chat_body(alias, "bounds", stream);
    req.headers.emplace_back("Authorization", "Bearer " + key());
    req.timeout = 8s;
    Timed t;
    const auto started = EdgeClock::now();
    try {
      t.response = http_call(port(), req);
    } catch (const std::exception& e) {
      t.error = e.what();
    }
    t.took = EdgeClock::now() - started;
    return t;
  }

  // What a streamed call relayed, read until its end, 1 MiB or 10 s.
  struct Relayed {
    int status = 0;
    HttpResponse error_answer;  // when the answer was not a stream
    std::size_t bytes = 0;      // data of every event
    bool done = false;          // a [DONE] event came
    bool error_event = false;   // a {"error":...} event came
    bool ended = false;         // the stream ended (cleanly or not) before the client stopped reading
    EdgeClock::duration took{};
  };
  static Relayed relay(const std::string& alias) {
    Relayed out;
    const auto started = EdgeClock::now();
    try {
      SseStream s(port(), key(), chat_body(alias, "bounds", true), 10s);
      out.status = s.status();
      if (s.header("content-type").rfind("text/event-stream", 0) != 0) {
        out.error_answer = HttpResponse{s.status(), s.headers(), s.rest()};
        out.ended = true;
      } else {
        while (out.bytes < (1u << 20) && EdgeClock::now() - started < 10s) {
          const auto event = s.next();
          if (!event) {
            out.ended = true;
            break;
          }
          out.bytes += event->data.size();
          out.done = out.done || event->data == "[DONE]";
          const json parsed = json::parse(event->data, nullptr, false);
          out.error_event = out.error_event || (parsed.is_object() && parsed.contains("error"));
        }
      }
    } catch (const std::exception&) {
      out.ended = true;  // the gateway cut the connection
    }
    out.took = EdgeClock::now() - started;
    return out;
  }

  static json interim_counts() { return json::parse(http_get(stack_->fake->port(), "/_fake/interim").body); }

  static inline std::unique_ptr<Stack> stack_;
  static inline std::string setup_error_;
};

TEST_F(UpstreamBoundsTest, EndlessInterimResponsesTimeOutLikeASlowFirstByte) {
  // first_byte_timeout_ms is 1500; the fake sends "100 Continue" every 100 ms
  // and never a final answer.
  auto streamed = std::async(std::launch::async, [] { return timed_chat("interim-forever", true); });
  const Timed plain = timed_chat("interim-forever", false);
  EXPECT_TRUE(plain.error.empty()) << "no answer within 8 s: " << plain.error;
  EXPECT_TRUE(IsApiError(plain.response, 504, "api_error", "provider_timeout"));
  EXPECT_LT(plain.took, 3000ms) << ms(plain.took);
  EXPECT_GE(plain.took, 1400ms) << ms(plain.took);

  const Timed stream = streamed.get();
  EXPECT_TRUE(stream.error.empty()) << "stream: no answer within 8 s: " << stream.error;
  EXPECT_TRUE(IsApiError(stream.response, 504, "api_error", "provider_timeout")) << "stream";
  EXPECT_LT(stream.took, 3000ms) << "stream: " << ms(stream.took);
}

TEST_F(UpstreamBoundsTest, ClientHangUpEndsAnUpstreamCallStuckInInterimResponses) {
  const json before = interim_counts();
  const std::string body = chat_body("interim-patient", "hang up");
  EdgeSocket c(port());
  c.send("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key() +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
         body);
  // Wait (boundedly) until the fake holds the gateway's call.
  const auto deadline = EdgeClock::now() + 3s;
  json now = before;
  while (now["total"] == before["total"] && EdgeClock::now() < deadline) {
    std::this_thread::sleep_for(50ms);
    now = interim_counts();
  }
  ASSERT_GT(now["total"].get<int>(), before["total"].get<int>())
      << "the call never reached the fake upstream";
  std::this_thread::sleep_for(300ms);
  c.close();
  const auto hung_up = EdgeClock::now();
  while (interim_counts()["open"].get<int>() > before["open"].get<int>() && EdgeClock::now() - hung_up < 3s) {
    std::this_thread::sleep_for(50ms);
  }
  const auto released = EdgeClock::now() - hung_up;
  EXPECT_LE(interim_counts()["open"].get<int>(), before["open"].get<int>())
      << "the gateway still holds the upstream connection 3 s after its client hung up";
  EXPECT_LT(released, 2s) << ms(released);
}

TEST_F(UpstreamBoundsTest, StreamPastMaxResponseBytesIsCut) {
  // The fake relays 4 MB of deltas; max_response_bytes is 64 KiB.
  const Relayed r = relay("flood");
  EXPECT_TRUE(r.ended) << "the client stopped reading at " << r.bytes << " bytes: the stream was not cut";
  EXPECT_FALSE(r.done) << "the whole stream was relayed";
  EXPECT_LT(r.bytes, 2 * kMaxResponseBytes) << "relayed past max_response_bytes";
  if (r.status != 200) {
    EXPECT_TRUE(IsApiError(r.error_answer, 502, "api_error", "provider_failed"));
  }
}

TEST_F(UpstreamBoundsTest, OverlongSseLineFailsTheStreamWithoutWaitingForIt) {
  // One 4 MiB data line, sent over about 2.6 s; max_sse_line_bytes is 4 KiB:
  // the stream must fail as soon as the line passes it, not once it is whole.
  const Relayed r = relay("long-line");
  EXPECT_TRUE(r.ended) << "the stream did not end";
  EXPECT_FALSE(r.done);
  EXPECT_LT(r.took, 1500ms) << "the gateway buffered the line: " << ms(r.took);
  EXPECT_LT(r.bytes, 64u * 1024) << "the line was relayed";
  if (r.status != 200) {
    EXPECT_TRUE(IsApiError(r.error_answer, 502, "api_error", "provider_failed"));
  }
}

TEST_F(UpstreamBoundsTest, UpstreamResponseWithContentLengthAndChunkedIs502) {
  const Timed t = timed_chat("both-lengths", false);
  EXPECT_TRUE(t.error.empty()) << t.error;
  EXPECT_TRUE(IsApiError(t.response, 502, "api_error", "provider_failed"));
}

}  // namespace
}  // namespace it
