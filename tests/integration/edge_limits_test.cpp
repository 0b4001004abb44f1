// Deadlines and bounds on client connections: a head trickled byte by byte
// is timed out, trickling attackers do not keep other clients from being
// served, a client over max_connections is told 503 in the envelope (not
// reset), a connection whose body was refused (413) is not held open, and
// idle keep-alive connections are closed after their timeout, sooner when
// connections are scarce. Small limits keep every test within a few seconds.
#include "edge_socket.h"
#include "harness/checks.h"
#include "harness/stack.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace it {
namespace {

using namespace std::chrono_literals;

const std::string kHealth = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
// A head that is never finished: one more byte of this header every tick.
const std::string kTrickleStart = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";

class EdgeLimitsTest : public ::testing::Test {
 protected:
  void start(GatewayOptions options) { stack_ = start_stack(std::move(options)); }
  int port() const { return stack_->port(); }

  std::unique_ptr<Stack> stack_;
};

// Connections that send one byte of a header every `tick`, on a thread of
// their own, until stopped (at most `limit`).
class Tricklers {
 public:
  Tricklers(int port, int count, std::chrono::milliseconds tick, std::chrono::milliseconds limit) {
    for (int i = 0; i < count; ++i) {
      sockets_.push_back(std::make_unique<EdgeSocket>(port));
      sockets_.back()->send(kTrickleStart);
    }
    started_ = EdgeClock::now();
    thread_ = std::thread([this, tick, limit] {
      while (!stop_.load() && EdgeClock::now() - started_ < limit) {
        std::this_thread::sleep_for(tick);
        for (auto& s : sockets_) {
          s->poll();
          if (!s->closed()) s->send("a");
        }
      }
      for (auto& s : sockets_) s->poll();
    });
  }
  ~Tricklers() { stop(); }

  void stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  EdgeClock::time_point started() const { return started_; }
  // Only after stop().
  const std::vector<std::unique_ptr<EdgeSocket>>& sockets() const { return sockets_; }

 private:
  std::vector<std::unique_ptr<EdgeSocket>> sockets_;
  EdgeClock::time_point started_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST_F(EdgeLimitsTest, TrickledHeadIsTimedOut) {
  GatewayOptions o;
  o.extra_server_yaml = "  header_timeout_ms: 1000\n";
  start(o);
  Tricklers t(port(), 1, 200ms, 4s);
  EdgeSocket& s = *t.sockets().front();
  // Read on this thread only after the trickler stopped touching the socket.
  std::this_thread::sleep_until(t.started() + 2500ms);
  t.stop();
  ASSERT_TRUE(s.closed()) << "a head trickled one byte per 200 ms was not timed out within 1000 + 1500 ms";
  EXPECT_LT(s.closed_at() - t.started(), 2500ms) << ms(s.closed_at() - t.started());
  if (!s.received().empty()) {
    const auto r = parse_answer(s.received());
    ASSERT_TRUE(r.has_value()) << s.received();
    EXPECT_TRUE(IsApiError(*r, 408, "invalid_request_error", "request_timeout"));
    EXPECT_EQ(ascii_lower(r->header("connection")), "close");
  }
  EdgeSocket after(port());
  after.send(kHealth);
  const auto health = after.wait_answer(EdgeClock::now() + 2s);
  ASSERT_TRUE(health.has_value()) << "the gateway no longer answers after timing out a head";
  EXPECT_EQ(health->status, 200);
}

TEST_F(EdgeLimitsTest, TricklersDoNotStarveOtherClients) {
  GatewayOptions o;
  o.extra_server_yaml = "  max_connections: 64\n  header_timeout_ms: 1000\n";
  start(o);
  // More tricklers than connection slots, trickling for longer than the test.
  Tricklers t(port(), 70, 200ms, 6s);
  std::this_thread::sleep_for(100ms);
  // A normal client (retrying when told the gateway is busy) must be served
  // within about the header timeout, not only when the tricklers finish.
  const auto deadline = t.started() + 1000ms + 1500ms;
  std::optional<HttpResponse> answer;
  int busy = 0;
  while (EdgeClock::now() < deadline) {
    EdgeSocket c(port());
    c.send(kHealth);
    answer = c.wait_answer(std::min(deadline, EdgeClock::now() + 1s));
    if (answer && answer->status == 200) break;
    if (answer && answer->status == 503) ++busy;
    std::this_thread::sleep_for(50ms);
  }
  const auto served_after = EdgeClock::now() - t.started();
  t.stop();
  RecordProperty(
      "served_after_ms",
      static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(served_after).count()));
  ASSERT_TRUE(answer.has_value()) << "a normal client got no answer while 70 connections trickled";
  EXPECT_EQ(answer->status, 200) << answer->body;
  EXPECT_LT(served_after, 2500ms) << ms(served_after) << ", after " << busy << " busy answers";
}

TEST_F(EdgeLimitsTest, ConnectionsOverTheLimitGet503Envelope) {
  GatewayOptions o;
  o.extra_server_yaml = "  max_connections: 16\n";
  start(o);
  // Sixteen connections hold every slot with work in progress (a request
  // whose body is still arriving), which the gateway may not close to make
  // room as it may an idle or trickling one. Each is answered once first,
  // so the gateway has surely accepted it.
  const std::string body = chat_body("gpt-4o-mini", "held");
  const std::string request =
      "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + stack_->key.key +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
      body;
  std::vector<std::unique_ptr<EdgeSocket>> held;
  for (int i = 0; i < 16; ++i) {
    held.push_back(std::make_unique<EdgeSocket>(port()));
    held.back()->send(kHealth);
    const auto r = held.back()->wait_answer(EdgeClock::now() + 3s);
    ASSERT_TRUE(r.has_value() && r->status == 200) << "connection " << i << " was not served";
    held.back()->send(request.substr(0, request.size() - 1));
  }
  // Until the gateway has read those heads, a held connection still counts
  // as idle and may be closed to make room. Nothing on the wire says when it
  // has: a bounded pause, far longer than reading 16 heads takes.
  std::this_thread::sleep_for(300ms);
  for (int i = 0; i < 3; ++i) {
    EdgeSocket extra(port());
    extra.send("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const auto r = extra.wait_answer(EdgeClock::now() + 2s);
    ASSERT_TRUE(r.has_value()) << "connection over max_connections: no answer within 2 s"
                               << (extra.reset()    ? " (reset)"
                                   : extra.closed() ? " (closed)"
                                                    : "");
    EXPECT_TRUE(IsApiError(*r, 503, "api_error", "server_busy"));
    EXPECT_EQ(ascii_lower(r->header("connection")), "close");
    EXPECT_TRUE(extra.wait_closed(EdgeClock::now() + 2s)) << "still open after the 503";
  }
  // A liveness probe is answered all the same: a full server is alive.
  {
    EdgeSocket probe(port());
    probe.send(kHealth);
    const auto r = probe.wait_answer(EdgeClock::now() + 2s);
    ASSERT_TRUE(r.has_value()) << "GET /healthz over max_connections: no answer within 2 s";
    EXPECT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(ascii_lower(r->header("connection")), "close");
  }
  // The held requests are still served.
  held.front()->send(request.substr(request.size() - 1));
  const auto r = held.front()->wait_answer(EdgeClock::now() + 3s);
  ASSERT_TRUE(r.has_value()) << "a held request was not answered";
  EXPECT_EQ(r->status, 200) << r->body;
}

TEST_F(EdgeLimitsTest, ConnectionIsClosedSoonAfterA413) {
  GatewayOptions o;
  o.max_body_bytes = 4096;
  start(o);
  EdgeSocket c(port());
  c.send("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + stack_->key.key +
         "\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n" + std::string(1024, 'x'));
  const auto r = c.wait_answer(EdgeClock::now() + 3s);
  ASSERT_TRUE(r.has_value()) << "no 413 within 3 s";
  EXPECT_TRUE(IsApiError(*r, 413, "invalid_request_error", "request_too_large"));
  // The client keeps uploading its (refused) body: the gateway may drain it
  // for a bounded time, then closes.
  const auto answered = EdgeClock::now();
  const std::string piece(1024, 'x');
  while (!c.closed() && EdgeClock::now() - answered < 3500ms) {
    c.send(piece);
    c.wait_closed(EdgeClock::now() + 50ms);
  }
  ASSERT_TRUE(c.closed()) << "the connection was still open 3.5 s after the 413";
  EXPECT_LT(c.closed_at() - answered, 3s) << ms(c.closed_at() - answered);
}

TEST_F(EdgeLimitsTest, IdleKeepAliveIsClosedAfterItsTimeout) {
  GatewayOptions o;
  o.extra_server_yaml = "  keep_alive_timeout_ms: 1000\n";
  start(o);
  EdgeSocket c(port());
  c.send(kHealth);
  const auto r = c.wait_answer(EdgeClock::now() + 3s);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  const auto answered = EdgeClock::now();
  ASSERT_TRUE(c.wait_closed(answered + 1000ms + 1500ms))
      << "idle keep-alive connection open 2.5 s after its answer";
  EXPECT_GE(c.closed_at() - answered, 500ms) << "closed at once: keep-alive does not work";
}

TEST_F(EdgeLimitsTest, IdleKeepAliveIsShortenedWhenConnectionsAreScarce) {
  // keep_alive_timeout_ms stays at its default (15 s); 13 of 16 connections
  // open is over 3/4, so idle ones must go after keep_alive_scarce_ms (1 s).
  GatewayOptions o;
  o.extra_server_yaml = "  max_connections: 16\n";
  start(o);
  std::vector<std::unique_ptr<EdgeSocket>> clients;
  for (int i = 0; i < 13; ++i) clients.push_back(std::make_unique<EdgeSocket>(port()));
  // Two rounds: once each connection has been answered the gateway has
  // accepted all 13, so the second answers set the scarce idle timeout.
  for (int round = 0; round < 2; ++round) {
    for (auto& c : clients) {
      c->send(kHealth);
      const auto r = c->wait_answer(EdgeClock::now() + 3s);
      ASSERT_TRUE(r.has_value()) << "round " << round;
      ASSERT_EQ(r->status, 200);
    }
  }
  const auto answered = EdgeClock::now();
  int closed = 0;
  for (auto& c : clients) closed += c->wait_closed(answered + 1000ms + 1500ms) ? 1 : 0;
  EXPECT_EQ(closed, 13)
      << "idle connections still open 2.5 s after their answers while connections are scarce";
}

}  // namespace
}  // namespace it

namespace it {
namespace {

// A keyed stream goes on after its client leaves (a retry replays it), but
// it holds no connection slot then: clients that leave such streams cannot
// lock everyone else out, however many they start.
TEST_F(EdgeLimitsTest, StreamsThatOutliveTheirClientsGiveTheirSlotsBack) {
  GatewayOptions o;
  o.extra_server_yaml = "  max_connections: 16\n";
  o.catalog.push_back({"keyed-long", "openai", "gpt-4o-mini+chunk_delay_ms=200+words=15"});
  start(o);
  constexpr int kStreams = 24;
  std::vector<std::string> ids;
  for (int i = 0; i < kStreams; ++i) {
    SseStream s(port(), stack_->key.key, chat_body("keyed-long", "detached " + std::to_string(i), true), 5s,
                Headers{{"Idempotency-Key", "detached-" + std::to_string(i)}});
    ASSERT_EQ(s.status(), 200) << "stream " << i << ": " << s.rest();
    ASSERT_TRUE(s.next().has_value()) << s.error();
    ids.push_back(s.header("x-request-id"));
  }  // each client hangs up here, with the stream under way
  EXPECT_EQ(http_get(port(), "/healthz").status, 200);
  EXPECT_EQ(http_get(port(), "/metrics").status, 200);
  const auto chat = post_chat(port(), stack_->key.key, chat_body("gpt-4o-mini", "a new client"));
  EXPECT_EQ(chat.status, 200) << chat.body;
  // The detached streams ran to their end: recorded, and kept for the retry.
  for (const auto& id : ids) {
    const auto record = stack_->usage().wait_for(id, 10s);
    ASSERT_TRUE(record.has_value()) << "no usage record for detached stream " << id;
    EXPECT_EQ(record->http_status, 200) << id;
  }
  SseStream retry(port(), stack_->key.key, chat_body("keyed-long", "detached 0", true), 5s,
                  Headers{{"Idempotency-Key", "detached-0"}});
  EXPECT_EQ(retry.status(), 200);
  EXPECT_EQ(retry.header("idempotent-replayed"), "true");
}

// Past server.max_detached_calls_per_tenant a call whose client leaves ends
// like any other: recorded as the client's disconnect, its key freed.
TEST_F(EdgeLimitsTest, DetachedCallsAreBoundedPerTenant) {
  GatewayOptions o;
  o.extra_server_yaml = "  max_detached_calls_per_tenant: 2\n";
  o.catalog.push_back({"keyed-long", "openai", "gpt-4o-mini+chunk_delay_ms=200+words=15"});
  start(o);
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    SseStream s(port(), stack_->key.key, chat_body("keyed-long", "bounded " + std::to_string(i), true), 5s,
                Headers{{"Idempotency-Key", "bounded-" + std::to_string(i)}});
    ASSERT_EQ(s.status(), 200);
    ASSERT_TRUE(s.next().has_value()) << s.error();
    ids.push_back(s.header("x-request-id"));
  }
  int completed = 0;
  int cut = 0;
  for (const auto& id : ids) {
    const auto record = stack_->usage().wait_for(id, 10s);
    ASSERT_TRUE(record.has_value()) << id;
    if (record->error_code.empty()) ++completed;
    if (record->error_code == "client_disconnected") ++cut;
  }
  EXPECT_EQ(completed, 2) << "two calls may outlive their clients";
  EXPECT_EQ(cut, 2) << "the others end as their clients left";
}

}  // namespace
}  // namespace it
