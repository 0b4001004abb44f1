// Exchange against a local POCO server: the response, the first-byte and total
// timeouts, a client hang-up, a busy pool and connection reuse.
#include "upstream/exchange.h"

#include "test_http_server.h"

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/StreamSocket.h>

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

using modelgw::testing::answer;
using modelgw::testing::dribble;
using modelgw::testing::ServerState;
using modelgw::testing::sleep_unless_stopping;
using modelgw::testing::TestHttpServer;
using modelgw::upstream::ConnectionPool;
using modelgw::upstream::Exchange;
using modelgw::upstream::FailureKind;
using modelgw::upstream::OutgoingRequest;
using modelgw::upstream::PoolOptions;
using modelgw::upstream::Timeouts;
using modelgw::upstream::UpstreamFailure;
using modelgw::upstream::UpstreamUrl;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

UpstreamUrl local(std::uint16_t port, const std::string& base_path = "/v1") {
  UpstreamUrl u;
  u.host = "127.0.0.1";
  u.port = port;
  u.base_path = base_path;
  return u;
}

PoolOptions options(int max_connections = 4, int connect_timeout_ms = 1000) {
  PoolOptions o;
  o.max_connections = max_connections;
  o.connect_timeout_ms = connect_timeout_ms;
  return o;
}

Timeouts timeouts(int first_byte_ms, int total_ms) {
  Timeouts t;
  t.first_byte = milliseconds(first_byte_ms);
  t.total = milliseconds(total_ms);
  return t;
}

OutgoingRequest post(const std::string& body = R"({"model":"m"})") {
  OutgoingRequest r;
  r.path = "/chat/completions";
  r.headers = {{"Content-Type", "application/json"}, {"Authorization", "Bearer test"}};
  r.body = body;
  return r;
}

long long ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - start).count();
}

// Runs `f`, which must throw UpstreamFailure; its kind (nullopt when it did not throw).
std::optional<FailureKind> failure_of(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const UpstreamFailure& e) {
    if (message) *message = e.what();
    return e.kind();
  }
  return std::nullopt;
}

// Reads a stream with read_some until its end, bounded in rounds.
std::string read_stream(Exchange& ex) {
  std::string out;
  char buffer[64];
  for (int round = 0; round < 10000; ++round) {
    const std::size_t n = ex.read_some(buffer, sizeof buffer);
    if (n == 0) return out;
    out.append(buffer, n);
  }
  ADD_FAILURE() << "the stream did not end";
  return out;
}

// A client connection for Exchange to watch, whose far end hangs up after `delay`.
class HangingUpClient {
 public:
  explicit HangingUpClient(milliseconds delay) {
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds_) != 0) throw std::runtime_error("socketpair failed");
    closer_ = std::thread([this, delay] {
      std::this_thread::sleep_for(delay);
      ::close(fds_[1]);
    });
  }
  ~HangingUpClient() {
    closer_.join();
    ::close(fds_[0]);
  }
  HangingUpClient(const HangingUpClient&) = delete;
  HangingUpClient& operator=(const HangingUpClient&) = delete;
  int fd() const { return fds_[0]; }

 private:
  int fds_[2] = {-1, -1};
  std::thread closer_;
};

void sleep_handler(Poco::Net::HTTPServerRequest&, const std::string&, Poco::Net::HTTPServerResponse& response,
                   const ServerState& state) {
  if (sleep_unless_stopping(state, milliseconds(3000))) answer(response, "{}");
}

// --- the happy path -------------------------------------------------------------

TEST(Exchange, SendsTheRequestAndReadsTheResponse) {
  std::string seen;
  std::mutex seen_mutex;
  TestHttpServer server([&](Poco::Net::HTTPServerRequest& request, const std::string& body,
                            Poco::Net::HTTPServerResponse& response, const ServerState&) {
    {
      std::lock_guard lock(seen_mutex);
      seen =
          request.getMethod() + " " + request.getURI() + " " + request.get("Authorization", "") + " " + body;
    }
    answer(response, R"({"id":"chatcmpl-1"})", 201);
  });
  ConnectionPool pool(local(server.port()), options());
  {
    Exchange ex(pool, timeouts(1000, 2000), -1);
    ex.start(post());
    EXPECT_EQ(ex.status(), 201);
    EXPECT_EQ(ex.response().getContentType(), "application/json");
    EXPECT_EQ(ex.read_all(1 << 20), R"({"id":"chatcmpl-1"})");
  }
  std::lock_guard lock(seen_mutex);
  EXPECT_EQ(seen, R"(POST /v1/chat/completions Bearer test {"model":"m"})");
}

TEST(Exchange, ErrorStatusesAreReturnedNotThrown) {
  TestHttpServer server([](auto&, auto&, auto& response, const ServerState&) {
    answer(response, R"({"error":{"message":"overloaded"}})", 503);
  });
  ConnectionPool pool(local(server.port()), options());
  Exchange ex(pool, timeouts(1000, 2000), -1);
  ex.start(post());
  EXPECT_EQ(ex.status(), 503);
  EXPECT_EQ(ex.read_all(1 << 20), R"({"error":{"message":"overloaded"}})");
}

TEST(Exchange, AConnectionReadToTheEndIsReused) {
  TestHttpServer server([](auto&, auto&, auto& response, const ServerState&) { answer(response, "done"); });
  ConnectionPool pool(local(server.port()), options());
  for (int i = 0; i < 3; ++i) {
    Exchange ex(pool, timeouts(1000, 2000), -1);
    ex.start(post());
    EXPECT_EQ(ex.read_all(1024), "done");
  }
  EXPECT_EQ(server.requests(), 3);
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(pool.open_connections(), 1);
}

TEST(Exchange, AConnectionNotReadToTheEndIsDiscarded) {
  TestHttpServer server([](auto&, auto&, auto& response, const ServerState&) { answer(response, "unread"); });
  ConnectionPool pool(local(server.port()), options());
  {
    Exchange ex(pool, timeouts(1000, 2000), -1);
    ex.start(post());
    EXPECT_EQ(pool.open_connections(), 1);
  }
  EXPECT_EQ(pool.open_connections(), 0);
  {
    Exchange ex(pool, timeouts(1000, 2000), -1);
    ex.start(post());
    ex.abort();
    EXPECT_EQ(pool.open_connections(), 0);
  }
  EXPECT_EQ(server.connections(), 2);
}

TEST(Exchange, ReadSomeStreamsTheBodyToItsEnd) {
  TestHttpServer server([](auto&, auto&, auto& response, const ServerState& state) {
    dribble(response, state, 20, milliseconds(1));
  });
  ConnectionPool pool(local(server.port()), options());
  {
    Exchange ex(pool, timeouts(500, 2000), -1);
    ex.start(post());
    EXPECT_EQ(read_stream(ex), std::string(20, 'x'));
  }
  EXPECT_EQ(pool.open_connections(), 1);  // kept: the body was read to the end
}

TEST(Exchange, AServerClosedIdleConnectionIsReplacedOnce) {
  // The server drops idle connections after 20 ms; the pool still holds one.
  TestHttpServer server([](auto&, auto&, auto& response, const ServerState&) { answer(response, "fresh"); },
                        milliseconds(20));
  ConnectionPool pool(local(server.port()), options());
  {
    Exchange ex(pool, timeouts(1000, 2000), -1);
    ex.start(post());
    EXPECT_EQ(ex.read_all(1024), "fresh");
  }
  ASSERT_EQ(pool.open_connections(), 1);
  std::this_thread::sleep_for(milliseconds(80));
  Exchange ex(pool, timeouts(1000, 2000), -1);
  ex.start(post());
  EXPECT_EQ(ex.status(), 200);
  EXPECT_EQ(ex.read_all(1024), "fresh");
  EXPECT_EQ(server.connections(), 2);
  EXPECT_EQ(server.requests(), 2);
}

// --- timeouts -------------------------------------------------------------------

TEST(Exchange, FirstByteTimeout) {
  TestHttpServer server(sleep_handler);
  ConnectionPool pool(local(server.port()), options());
  Exchange ex(pool, timeouts(50, 2000), -1);
  const auto start = Clock::now();
  std::string message;
  EXPECT_EQ(failure_of([&] { ex.start(post()); }, &message), FailureKind::timeout);
  const auto took = ms_since(start);
  EXPECT_GE(took, 45);
  EXPECT_LT(took, 700);
  EXPECT_NE(message.find("50 ms"), std::string::npos) << message;
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(Exchange, TheTotalTimeoutBoundsTheWaitForTheHead) {
  TestHttpServer server(sleep_handler);
  ConnectionPool pool(local(server.port()), options());
  Exchange ex(pool, timeouts(2000, 60), -1);
  const auto start = Clock::now();
  EXPECT_EQ(failure_of([&] { ex.start(post()); }), FailureKind::timeout);
  const auto took = ms_since(start);
  EXPECT_GE(took, 55);
  EXPECT_LT(took, 700);
}

TEST(Exchange, TotalTimeoutOnASlowlyDribblingBody) {
  // 200 bytes, one every 10 ms: each piece is on time, the whole is not.
  TestHttpServer server([](auto&, auto&, auto& response, const ServerState& state) {
    dribble(response, state, 200, milliseconds(10));
  });
  ConnectionPool pool(local(server.port()), options());
  Exchange ex(pool, timeouts(100, 150), -1);
  const auto start = Clock::now();
  ex.start(post());
  std::string message;
  EXPECT_EQ(failure_of([&] { ex.read_all(1 << 20); }, &message), FailureKind::timeout);
  const auto took = ms_since(start);
  EXPECT_LT(took, 700);
  EXPECT_NE(message.find("150 ms"), std::string::npos) << message;
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(Exchange, TotalTimeoutOnASlowlyDribblingStream) {
  TestHttpServer server([](auto&, auto&, auto& response, const ServerState& state) {
    dribble(response, state, 200, milliseconds(10));
  });
  ConnectionPool pool(local(server.port()), options());
  Exchange ex(pool, timeouts(100, 150), -1);
  const auto start = Clock::now();
  ex.start(post());
  std::string message;
  EXPECT_EQ(failure_of([&] { read_stream(ex); }, &message), FailureKind::timeout);
  EXPECT_LT(ms_since(start), 700);
  EXPECT_NE(message.find("150 ms"), std::string::npos) << message;
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(Exchange, AStreamThatGoesQuietTimesOutAfterTheFirstByteTimeout) {
  TestHttpServer server([](auto&, auto&, auto& response, const ServerState& state) {
    response.setContentLength(100);
    std::ostream& out = response.send();
    out << "hello";
    out.flush();
    sleep_unless_stopping(state, milliseconds(3000));
  });
  ConnectionPool pool(local(server.port()), options());
  Exchange ex(pool, timeouts(60, 2000), -1);
  ex.start(post());
  char buffer[64];
  std::size_t got = 0;
  std::string message;
  Clock::time_point quiet_since = Clock::now();
  const auto kind = failure_of(
      [&] {
        for (int i = 0; i < 100; ++i) {
          got += ex.read_some(buffer, sizeof buffer);
          quiet_since = Clock::now();
        }
      },
      &message);
  EXPECT_EQ(kind, FailureKind::timeout);
  EXPECT_EQ(got, 5u);
  const auto quiet = ms_since(quiet_since);
  EXPECT_GE(quiet, 55);
  EXPECT_LT(quiet, 700);
  EXPECT_NE(message.find("60 ms"), std::string::npos) << message;
}

TEST(Exchange, ABodyOverTheLimitIsTooLarge) {
  TestHttpServer server(
      [](auto&, auto&, auto& response, const ServerState&) { answer(response, std::string(100, 'a')); });
  ConnectionPool pool(local(server.port()), options());
  Exchange ex(pool, timeouts(1000, 2000), -1);
  ex.start(post());
  EXPECT_EQ(failure_of([&] { ex.read_all(10); }), FailureKind::too_large);
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(Exchange, ABodyAtTheLimitIsRead) {
  TestHttpServer server(
      [](auto&, auto&, auto& response, const ServerState&) { answer(response, std::string(100, 'a')); });
  ConnectionPool pool(local(server.port()), options());
  Exchange ex(pool, timeouts(1000, 2000), -1);
  ex.start(post());
  EXPECT_EQ(ex.read_all(100), std::string(100, 'a'));
}

// --- the client hangs up ----------------------------------------------------------

TEST(Exchange, AClientHangUpCancelsTheWaitForTheHead) {
  TestHttpServer server(sleep_handler);
  ConnectionPool pool(local(server.port()), options());
  HangingUpClient client(milliseconds(40));
  Exchange ex(pool, timeouts(2000, 3000), client.fd());
  const auto start = Clock::now();
  EXPECT_EQ(failure_of([&] { ex.start(post()); }), FailureKind::cancelled);
  const auto took = ms_since(start);
  EXPECT_GE(took, 30);
  EXPECT_LT(took, 700);
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(Exchange, AClientHangUpOverTcpCancelsTheWaitForTheHead) {
  TestHttpServer server(sleep_handler);
  ConnectionPool pool(local(server.port()), options());
  Poco::Net::ServerSocket listener(Poco::Net::SocketAddress("127.0.0.1", 0));
  Poco::Net::StreamSocket gateway_side;
  gateway_side.connect(listener.address());
  Poco::Net::StreamSocket client_side = listener.acceptConnection();
  std::thread closer([&client_side] {
    std::this_thread::sleep_for(milliseconds(40));
    client_side.close();
  });
  Exchange ex(pool, timeouts(2000, 3000), gateway_side.impl()->sockfd());
  const auto start = Clock::now();
  EXPECT_EQ(failure_of([&] { ex.start(post()); }), FailureKind::cancelled);
  EXPECT_LT(ms_since(start), 700);
  closer.join();
}

TEST(Exchange, AClientHangUpCancelsReadAll) {
  TestHttpServer server([](auto&, auto&, auto& response, const ServerState& state) {
    response.setContentLength(10);
    response.send().flush();
    sleep_unless_stopping(state, milliseconds(3000));
  });
  ConnectionPool pool(local(server.port()), options());
  HangingUpClient client(milliseconds(60));
  Exchange ex(pool, timeouts(2000, 3000), client.fd());
  const auto start = Clock::now();
  ex.start(post());
  EXPECT_EQ(ex.status(), 200);
  EXPECT_EQ(failure_of([&] { ex.read_all(1024); }), FailureKind::cancelled);
  EXPECT_LT(ms_since(start), 700);
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(Exchange, AClientHangUpCancelsAStream) {
  TestHttpServer server([](auto&, auto&, auto& response, const ServerState& state) {
    dribble(response, state, 1000, milliseconds(200));
  });
  ConnectionPool pool(local(server.port()), options());
  HangingUpClient client(milliseconds(60));
  Exchange ex(pool, timeouts(2000, 3000), client.fd());
  const auto start = Clock::now();
  ex.start(post());
  EXPECT_EQ(failure_of([&] { read_stream(ex); }), FailureKind::cancelled);
  EXPECT_LT(ms_since(start), 700);
  EXPECT_EQ(pool.open_connections(), 0);
}

// --- no connection ------------------------------------------------------------------

TEST(Exchange, ABusyPoolFailsAsBusyAtTheConnectTimeout) {
  TestHttpServer server([](auto&, auto&, auto& response, const ServerState&) { answer(response, "{}"); });
  ConnectionPool pool(local(server.port()), options(1, 40));
  bool reused = false;
  auto held = pool.acquire(reused, Clock::now());
  ASSERT_NE(held, nullptr);
  Exchange ex(pool, timeouts(1000, 2000), -1);
  const auto start = Clock::now();
  std::string message;
  EXPECT_EQ(failure_of([&] { ex.start(post()); }, &message), FailureKind::busy);
  const auto took = ms_since(start);
  EXPECT_GE(took, 35);
  EXPECT_LT(took, 700);
  EXPECT_EQ(server.requests(), 0);  // the request never left
  EXPECT_EQ(pool.open_connections(), 1);
  pool.discard(std::move(held));
}

TEST(Exchange, ARefusedConnectionFailsAsConnect) {
  std::uint16_t closed_port = 0;
  {
    Poco::Net::ServerSocket probe(Poco::Net::SocketAddress("127.0.0.1", 0));
    closed_port = probe.address().port();
  }
  ConnectionPool pool(local(closed_port), options(2, 200));
  Exchange ex(pool, timeouts(1000, 2000), -1);
  EXPECT_EQ(failure_of([&] { ex.start(post()); }), FailureKind::connect);
  EXPECT_EQ(pool.open_connections(), 0);
}

}  // namespace
