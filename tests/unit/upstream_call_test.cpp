// UpstreamCall and UpstreamPool (the event-driven upstream client) against a
// scripted server on 127.0.0.1: each test writes the bytes the upstream sends,
// so framing errors, interim responses and stalls are exact. The client runs
// on an io_context driven by the test thread, every run bounded in time.
#include "upstream/upstream_call.h"
#include "upstream/upstream_pool.h"

#include "net/asio.h"
#include "net/cancel_signal.h"

#include "fake_proxy/proxy_process.h"
#include "fake_proxy/test_certs.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace asio = modelgw::net::asio;
using modelgw::net::CancelSignal;
using modelgw::net::Task;
using modelgw::upstream::FailureKind;
using modelgw::upstream::OutgoingRequest;
using modelgw::upstream::PoolSettings;
using modelgw::upstream::Timeouts;
using modelgw::upstream::UpstreamCall;
using modelgw::upstream::UpstreamFailure;
using modelgw::upstream::UpstreamPool;
using modelgw::upstream::UpstreamUrl;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// --- the scripted server ----------------------------------------------------------

// One accepted connection, driven by a test's script on its own thread.
class ScriptedConnection {
 public:
  ScriptedConnection(int fd, int index, const std::atomic<bool>& stopping, std::atomic<int>& requests)
      : fd_(fd), index_(index), stopping_(stopping), requests_(requests) {}
  ~ScriptedConnection() { close(); }

  int index() const { return index_; }  // 0 for the first connection the server accepted

  // Reads one request (head and Content-Length body), up to 5 s. False when
  // the client closed, or the server stops.
  bool read_request(std::string* raw = nullptr) {
    const auto until = Clock::now() + milliseconds(5000);
    while (Clock::now() < until && !stopping_) {
      const auto end = in_.find("\r\n\r\n");
      if (end != std::string::npos) {
        const std::size_t need = end + 4 + content_length(in_.substr(0, end));
        if (in_.size() >= need) {
          if (raw) *raw = in_.substr(0, need);
          in_.erase(0, need);
          ++requests_;
          return true;
        }
      }
      if (!receive_some()) return false;
    }
    return false;
  }
  void send(const std::string& bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size() && fd_ >= 0) {
      const auto n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<std::size_t>(n);
    }
  }
  // Sleeps up to `ms`; false when the server stops meanwhile.
  bool sleep(milliseconds ms) {
    const auto until = Clock::now() + ms;
    while (Clock::now() < until) {
      if (stopping_) return false;
      std::this_thread::sleep_for(milliseconds(2));
    }
    return !stopping_;
  }
  // Waits up to `ms` for the client to close; true if it did.
  bool wait_for_close(milliseconds ms) {
    const auto until = Clock::now() + ms;
    while (Clock::now() < until && !stopping_) {
      if (!receive_some()) return true;
    }
    return false;
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  static std::size_t content_length(const std::string& head) {
    std::string lower = head;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto at = lower.find("\r\ncontent-length:");
    if (at == std::string::npos) return 0;
    return static_cast<std::size_t>(std::stoul(lower.substr(at + 17)));
  }
  // Waits up to 20 ms for bytes; false at the end of the stream.
  bool receive_some() {
    if (fd_ < 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) return true;
    char buffer[4096];
    const auto n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n <= 0) return false;
    in_.append(buffer, static_cast<std::size_t>(n));
    return true;
  }

  int fd_;
  int index_;
  const std::atomic<bool>& stopping_;
  std::atomic<int>& requests_;
  std::string in_;
};

class ScriptedServer {
 public:
  using Script = std::function<void(ScriptedConnection&)>;

  explicit ScriptedServer(Script script) : script_(std::move(script)) {
    std::signal(SIGPIPE, SIG_IGN);
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listener_, 64) != 0) {
      throw std::runtime_error("cannot listen on 127.0.0.1");
    }
    socklen_t len = sizeof addr;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~ScriptedServer() {
    stopping_ = true;
    acceptor_.join();
    std::lock_guard lock(mutex_);
    for (auto& t : handlers_) t.join();
    ::close(listener_);
  }
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  std::uint16_t port() const { return port_; }
  int connections() const { return connections_.load(); }
  int requests() const { return requests_.load(); }

 private:
  void accept_loop() {
    while (!stopping_) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) continue;
      const int index = connections_++;
      std::lock_guard lock(mutex_);
      handlers_.emplace_back([this, fd, index] {
        ScriptedConnection c(fd, index, stopping_, requests_);
        script_(c);
      });
    }
  }

  Script script_;
  int listener_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
  std::atomic<int> requests_{0};
  std::mutex mutex_;
  std::vector<std::thread> handlers_;
  std::thread acceptor_;
};

std::string ok(const std::string& body, const std::string& extra_headers = "") {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + extra_headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// A script that answers every request on the connection with `response`.
ScriptedServer::Script always(const std::string& response) {
  return [response](ScriptedConnection& c) {
    while (c.read_request()) c.send(response);
  };
}

// A script that reads the request and sends `response`, then waits (bounded)
// for the client to go.
ScriptedServer::Script once(const std::string& response) {
  return [response](ScriptedConnection& c) {
    if (!c.read_request()) return;
    c.send(response);
    c.wait_for_close(milliseconds(3000));
  };
}

// --- the client side -------------------------------------------------------------

UpstreamUrl local(std::uint16_t port, bool https = false) {
  UpstreamUrl u;
  u.https = https;
  u.host = "127.0.0.1";
  u.port = port;
  u.base_path = "/v1";
  return u;
}

PoolSettings settings(int max_connections = 4, int connect_timeout_ms = 1000) {
  PoolSettings s;
  s.max_connections = max_connections;
  s.connect_timeout_ms = connect_timeout_ms;
  return s;
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
  r.headers = {{"Content-Type", "application/json"}, {"Authorization", "Bearer test-secret"}};
  r.body = body;
  return r;
}

long long ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - start).count();
}

// Runs coroutines on the test thread's io_context, bounded in time.
class Loop {
 public:
  // Runs `body` to its end (at most `limit`); rethrows what it threw.
  template <class Body>
  void run(Body body, milliseconds limit = milliseconds(8000)) {
    bool finished = false;
    std::exception_ptr error;
    asio::co_spawn(io_, std::move(body), [&](std::exception_ptr e) {
      finished = true;
      error = e;
    });
    io_.restart();
    const auto until = Clock::now() + limit;
    while (!finished && Clock::now() < until) io_.run_one_for(milliseconds(50));
    if (!finished) throw std::runtime_error("the coroutine did not finish in time");
    if (error) std::rethrow_exception(error);
  }
  // Runs handlers already due (e.g. posted wake-ups), briefly.
  void settle() {
    io_.restart();
    io_.run_for(milliseconds(20));
  }
  asio::io_context& io() { return io_; }

 private:
  asio::io_context io_;
};

struct Outcome {
  std::optional<FailureKind> kind;
  std::string message;
  int status = 0;
  std::string body;
  std::vector<std::string> pieces;
  long long took_ms = 0;
};

// One call: start, then the whole body (read_all) or the pieces (read_some).
Task<void> one_call(UpstreamPool& pool, Timeouts t, std::size_t max_bytes, Outcome& out, bool stream = false,
                    CancelSignal* client_gone = nullptr, OutgoingRequest request = post()) {
  const auto start = Clock::now();
  UpstreamCall call(pool, t, max_bytes, client_gone);
  try {
    co_await call.start(request);
    out.status = call.status();
    if (!stream) {
      out.body = co_await call.read_all();
    } else {
      for (int i = 0; i < 100000; ++i) {
        const std::string_view piece = co_await call.read_some();
        if (piece.empty()) break;
        out.pieces.emplace_back(piece);
        out.body.append(piece);
      }
    }
  } catch (const UpstreamFailure& f) {
    out.kind = f.kind();
    out.message = f.what();
  }
  out.took_ms = ms_since(start);
}

// --- whole bodies and streams ------------------------------------------------------

TEST(UpstreamCall, ReadsAContentLengthBodyAndSendsTheRequest) {
  std::string seen;
  ScriptedServer server([&](ScriptedConnection& c) {
    if (!c.read_request(&seen)) return;
    c.send(ok(R"({"id":"chatcmpl-1"})", "X-Request-Id: abc\r\n"));
    c.wait_for_close(milliseconds(2000));
  });
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  std::vector<std::pair<std::string, std::string>> headers;
  loop.run([&]() -> Task<void> {
    UpstreamCall call(pool, timeouts(1000, 2000), 1 << 20, nullptr);
    co_await call.start(post());
    out.status = call.status();
    headers = call.headers();
    out.body = co_await call.read_all();
  });
  EXPECT_EQ(out.status, 200);
  EXPECT_EQ(out.body, R"({"id":"chatcmpl-1"})");
  bool has_id = false;
  for (const auto& [name, value] : headers) has_id = has_id || (name == "X-Request-Id" && value == "abc");
  EXPECT_TRUE(has_id);
  EXPECT_EQ(seen.rfind("POST /v1/chat/completions HTTP/1.1\r\n", 0), 0u) << seen;
  EXPECT_NE(seen.find("\r\nHost: 127.0.0.1:" + std::to_string(server.port()) + "\r\n"), std::string::npos);
  EXPECT_NE(seen.find("\r\nAuthorization: Bearer test-secret\r\n"), std::string::npos);
  EXPECT_NE(seen.find("\r\nContent-Length: 13\r\n\r\n{\"model\":\"m\"}"), std::string::npos) << seen;
  EXPECT_EQ(pool.open_connections(), 1);  // read to its end: kept
}

TEST(UpstreamCall, ReadsAChunkedBody) {
  ScriptedServer server(
      once("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n "
           "world\r\n0\r\nX-T: 1\r\n\r\n"));
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 1 << 20, out); });
  EXPECT_FALSE(out.kind) << out.message;
  EXPECT_EQ(out.body, "hello world");
  EXPECT_EQ(pool.open_connections(), 1);
}

TEST(UpstreamCall, ReadSomeYieldsPiecesAsTheyArrive) {
  ScriptedServer server([](ScriptedConnection& c) {
    if (!c.read_request()) return;
    c.send("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (const char* event : {"data: one\n\n", "data: two\n\n", "data: three\n\n"}) {
      if (!c.sleep(milliseconds(30))) return;
      const std::string e = event;
      char size[16];
      std::snprintf(size, sizeof size, "%zx", e.size());
      c.send(std::string(size) + "\r\n" + e + "\r\n");
    }
    c.send("0\r\n\r\n");
    c.wait_for_close(milliseconds(2000));
  });
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 3000), 1 << 20, out, true); });
  EXPECT_FALSE(out.kind) << out.message;
  EXPECT_EQ(out.body, "data: one\n\ndata: two\n\ndata: three\n\n");
  ASSERT_EQ(out.pieces.size(), 3u);  // each event in its own piece, as it came
  EXPECT_EQ(out.pieces[1], "data: two\n\n");
  EXPECT_EQ(pool.open_connections(), 1);
}

TEST(UpstreamCall, ABodyUntilCloseIsReadAndTheConnectionNotKept) {
  ScriptedServer server([](ScriptedConnection& c) {
    if (!c.read_request()) return;
    c.send("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it");
    c.close();
  });
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 1 << 20, out); });
  EXPECT_FALSE(out.kind) << out.message;
  EXPECT_EQ(out.body, "all of it");
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(UpstreamCall, StatusIsKeptAsSent) {
  ScriptedServer server(once("HTTP/1.1 529 Site Overloaded\r\nContent-Length: 2\r\n\r\n{}"));
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 1 << 20, out); });
  EXPECT_FALSE(out.kind) << out.message;
  EXPECT_EQ(out.status, 529);
  EXPECT_EQ(out.body, "{}");
}

TEST(UpstreamCall, InterimResponsesAreSkipped) {
  ScriptedServer server(once("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" +
                             ok("final", "X-Final: yes\r\n")));
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  std::vector<std::pair<std::string, std::string>> headers;
  loop.run([&]() -> Task<void> {
    UpstreamCall call(pool, timeouts(1000, 2000), 1 << 20, nullptr);
    co_await call.start(post());
    out.status = call.status();
    headers = call.headers();
    out.body = co_await call.read_all();
  });
  EXPECT_EQ(out.status, 200);
  EXPECT_EQ(out.body, "final");
  bool link = false, final_header = false;
  for (const auto& [name, value] : headers) {
    link = link || name == "Link";
    final_header = final_header || name == "X-Final";
  }
  EXPECT_FALSE(link);
  EXPECT_TRUE(final_header);
}

// --- keep-alive ---------------------------------------------------------------------

TEST(UpstreamCall, ASecondCallReusesTheConnection) {
  ScriptedServer server(always(ok("done")));
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  for (int i = 0; i < 3; ++i) {
    Outcome out;
    loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 1024, out); });
    EXPECT_EQ(out.body, "done") << out.message;
  }
  EXPECT_EQ(server.requests(), 3);
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(pool.open_connections(), 1);
}

TEST(UpstreamCall, AConnectionNotReadToTheEndIsNotReused) {
  ScriptedServer server(always(ok("unread")));
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  loop.run([&]() -> Task<void> {
    UpstreamCall call(pool, timeouts(1000, 2000), 1024, nullptr);
    co_await call.start(post());
  });
  EXPECT_EQ(pool.open_connections(), 0);
  loop.run([&]() -> Task<void> {
    UpstreamCall call(pool, timeouts(1000, 2000), 1024, nullptr);
    co_await call.start(post());
    call.abort();
    EXPECT_EQ(pool.open_connections(), 0);
  });
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 1024, out); });
  EXPECT_EQ(out.body, "unread");
  EXPECT_EQ(server.connections(), 3);
}

TEST(UpstreamCall, AnIdleConnectionTheServerClosedIsReplaced) {
  // The server answers one request per connection, then closes it.
  ScriptedServer server([](ScriptedConnection& c) {
    if (!c.read_request()) return;
    c.send(ok("fresh"));
    c.close();
  });
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  for (int i = 0; i < 2; ++i) {
    Outcome out;
    loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 1024, out); });
    EXPECT_EQ(out.body, "fresh") << out.message;
    if (i == 0) std::this_thread::sleep_for(milliseconds(50));  // the FIN arrives
  }
  EXPECT_EQ(server.connections(), 2);
  EXPECT_EQ(server.requests(), 2);
}

TEST(UpstreamCall, ARequestLostOnAStaleConnectionIsRetriedOnceOnAFreshOne) {
  // The first connection answers once, then takes the next request and
  // closes without a byte of answer: the race of a server's idle timeout.
  ScriptedServer server([](ScriptedConnection& c) {
    if (c.index() == 0) {
      if (!c.read_request()) return;
      c.send(ok("first"));
      if (!c.read_request()) return;
      c.close();
      return;
    }
    while (c.read_request()) c.send(ok("retried"));
  });
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome first, second;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 1024, first); });
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 1024, second); });
  EXPECT_EQ(first.body, "first");
  EXPECT_FALSE(second.kind) << second.message;
  EXPECT_EQ(second.body, "retried");
  EXPECT_EQ(server.connections(), 2);
  EXPECT_EQ(server.requests(), 3);
}

TEST(UpstreamCall, AFreshConnectionClosedWithoutAnswerIsNotRetried) {
  ScriptedServer server([](ScriptedConnection& c) {
    if (!c.read_request()) return;
    c.close();
  });
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 1024, out); });
  EXPECT_EQ(out.kind, FailureKind::io) << out.message;
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(pool.open_connections(), 0);
}

// --- strict framing ---------------------------------------------------------------------

struct Malformed {
  const char* name;
  std::string response;
};

TEST(UpstreamCall, MalformedFramingFailsAsIoAndTheConnectionIsNotReused) {
  const std::vector<Malformed> cases = {
      {"CL+TE",
       "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"},
      {"TE+CL",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n5\r\nhello\r\n0\r\n\r\n"},
      {"duplicate CL", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello"},
      {"differing CL", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"},
      {"CL list", "HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello"},
      {"negative CL", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nhello"},
      {"non-numeric CL", "HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\nhello"},
      {"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"},
      {"chunk size with junk",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5 x y\r\nhello\r\n0\r\n\r\n"},
      {"garbage after a chunk",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX\r\n0\r\n\r\n"},
      {"not HTTP", "SSH-2.0-OpenSSH\r\n\r\n"},
      {"101", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n"},
      {"truncated CL body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello"},
  };
  for (const auto& c : cases) {
    for (const bool stream : {false, true}) {
      ScriptedServer server([&c](ScriptedConnection& conn) {
        if (!conn.read_request()) return;
        conn.send(c.response);
        conn.close();  // also ends the truncated body
      });
      Loop loop;
      UpstreamPool pool(local(server.port()), settings());
      Outcome out;
      loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 1 << 20, out, stream); });
      EXPECT_EQ(out.kind, FailureKind::io) << c.name << (stream ? " (stream)" : "") << ": " << out.message;
      EXPECT_EQ(pool.open_connections(), 0) << c.name;
    }
  }
}

TEST(UpstreamCall, ErrorMessagesCarryNoHeaderValues) {
  ScriptedServer server(once("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello"));
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 1024, out); });
  EXPECT_EQ(out.kind, FailureKind::io);
  EXPECT_EQ(out.message.find("test-secret"), std::string::npos) << out.message;
  // A header value that would smuggle a line is refused before anything is sent.
  OutgoingRequest bad = post();
  bad.headers.emplace_back("X-Key", "sk-secret\r\nX-Injected: 1");
  Outcome refused;
  loop.run([&]() -> Task<void> {
    co_await one_call(pool, timeouts(1000, 2000), 1024, refused, false, nullptr, bad);
  });
  EXPECT_EQ(refused.kind, FailureKind::io);
  EXPECT_EQ(refused.message.find("sk-secret"), std::string::npos) << refused.message;
  EXPECT_EQ(server.requests(), 1);
}

// --- timeouts -----------------------------------------------------------------------------

TEST(UpstreamCall, AFloodOfContinueTimesOutAtTheFirstByteTimeout) {
  ScriptedServer server([](ScriptedConnection& c) {
    if (!c.read_request()) return;
    for (int i = 0; i < 2000 && c.sleep(milliseconds(5)); ++i) c.send("HTTP/1.1 100 Continue\r\n\r\n");
  });
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(150, 5000), 1024, out); });
  EXPECT_EQ(out.kind, FailureKind::timeout) << out.message;
  EXPECT_GE(out.took_ms, 140);
  EXPECT_LT(out.took_ms, 700);
  EXPECT_NE(out.message.find("150 ms"), std::string::npos) << out.message;
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(UpstreamCall, AFloodOfContinueNeverOutrunsTheTotalTimeout) {
  ScriptedServer server([](ScriptedConnection& c) {
    if (!c.read_request()) return;
    for (int i = 0; i < 2000 && c.sleep(milliseconds(5)); ++i) c.send("HTTP/1.1 100 Continue\r\n\r\n");
  });
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(5000, 150), 1024, out); });
  EXPECT_EQ(out.kind, FailureKind::timeout) << out.message;
  EXPECT_GE(out.took_ms, 140);
  EXPECT_LT(out.took_ms, 700);
}

TEST(UpstreamCall, FirstByteTimeoutOnASilentServer) {
  ScriptedServer server([](ScriptedConnection& c) {
    if (c.read_request()) c.sleep(milliseconds(3000));
  });
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(80, 2000), 1024, out); });
  EXPECT_EQ(out.kind, FailureKind::timeout);
  EXPECT_GE(out.took_ms, 75);
  EXPECT_LT(out.took_ms, 700);
  EXPECT_NE(out.message.find("80 ms"), std::string::npos) << out.message;
}

// 200 one-byte chunks, one every 10 ms: each piece is on time, the whole is not.
ScriptedServer::Script dribble() {
  return [](ScriptedConnection& c) {
    if (!c.read_request()) return;
    c.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (int i = 0; i < 200 && c.sleep(milliseconds(10)); ++i) c.send("1\r\nx\r\n");
  };
}

TEST(UpstreamCall, TotalTimeoutOnASlowStream) {
  ScriptedServer server(dribble());
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(100, 200), 1 << 20, out, true); });
  EXPECT_EQ(out.kind, FailureKind::timeout) << out.message;
  EXPECT_GE(out.took_ms, 190);
  EXPECT_LT(out.took_ms, 800);
  EXPECT_GT(out.pieces.size(), 3u);
  EXPECT_NE(out.message.find("200 ms"), std::string::npos) << out.message;
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(UpstreamCall, TotalTimeoutOnASlowWholeBody) {
  ScriptedServer server(dribble());
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(100, 200), 1 << 20, out); });
  EXPECT_EQ(out.kind, FailureKind::timeout) << out.message;
  EXPECT_GE(out.took_ms, 190);
  EXPECT_LT(out.took_ms, 800);
}

TEST(UpstreamCall, AStreamThatGoesQuietTimesOutAfterTheFirstByteTimeout) {
  ScriptedServer server([](ScriptedConnection& c) {
    if (!c.read_request()) return;
    c.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhello");
    c.sleep(milliseconds(3000));
  });
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(60, 3000), 1 << 20, out, true); });
  EXPECT_EQ(out.kind, FailureKind::timeout) << out.message;
  EXPECT_EQ(out.body, "hello");
  EXPECT_LT(out.took_ms, 700);
  EXPECT_NE(out.message.find("sent nothing for 60 ms"), std::string::npos) << out.message;
}

// --- the client hangs up -------------------------------------------------------------------

TEST(UpstreamCall, AClientHangUpCancelsTheWaitForTheHead) {
  ScriptedServer server([](ScriptedConnection& c) {
    if (c.read_request()) c.sleep(milliseconds(3000));
  });
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  CancelSignal gone;
  modelgw::net::SteadyTimer hang_up(loop.io(), milliseconds(50));
  hang_up.async_wait([&](const boost::system::error_code&) { gone.emit(); });
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(2000, 3000), 1024, out, false, &gone); });
  EXPECT_EQ(out.kind, FailureKind::cancelled) << out.message;
  EXPECT_GE(out.took_ms, 40);
  EXPECT_LT(out.took_ms, 700);
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(UpstreamCall, AClientHangUpCancelsAStream) {
  ScriptedServer server([](ScriptedConnection& c) {
    if (!c.read_request()) return;
    c.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (int i = 0; i < 100 && c.sleep(milliseconds(20)); ++i) c.send("1\r\nx\r\n");
  });
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  CancelSignal gone;
  modelgw::net::SteadyTimer hang_up(loop.io(), milliseconds(120));
  hang_up.async_wait([&](const boost::system::error_code&) { gone.emit(); });
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(2000, 5000), 1024, out, true, &gone); });
  EXPECT_EQ(out.kind, FailureKind::cancelled) << out.message;
  EXPECT_FALSE(out.pieces.empty());
  EXPECT_LT(out.took_ms, 700);
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST(UpstreamCall, AClientGoneBeforeTheCallNeverConnects) {
  ScriptedServer server(always(ok("x")));
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  CancelSignal gone;
  gone.emit();
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(2000, 3000), 1024, out, false, &gone); });
  EXPECT_EQ(out.kind, FailureKind::cancelled);
  EXPECT_EQ(server.connections(), 0);
}

// --- max_response_bytes -------------------------------------------------------------------

TEST(UpstreamCall, AWholeBodyOverTheLimitIsTooLarge) {
  ScriptedServer server(always(ok(std::string(100, 'a'))));
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome over, at;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 10, over); });
  EXPECT_EQ(over.kind, FailureKind::too_large);
  EXPECT_EQ(pool.open_connections(), 0);
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 100, at); });
  EXPECT_FALSE(at.kind) << at.message;
  EXPECT_EQ(at.body, std::string(100, 'a'));
}

TEST(UpstreamCall, AChunkedBodyOverTheLimitIsTooLarge) {
  std::string chunks;
  for (int i = 0; i < 10; ++i) chunks += "a\r\n0123456789\r\n";
  ScriptedServer server(once("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks + "0\r\n\r\n"));
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 35, out); });
  EXPECT_EQ(out.kind, FailureKind::too_large);
}

TEST(UpstreamCall, AStreamIsCutOnceItsTotalPassesTheLimit) {
  ScriptedServer server([](ScriptedConnection& c) {
    if (!c.read_request()) return;
    c.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (int i = 0; i < 10 && c.sleep(milliseconds(5)); ++i) c.send("a\r\n0123456789\r\n");
    c.send("0\r\n\r\n");
    c.wait_for_close(milliseconds(2000));
  });
  Loop loop;
  UpstreamPool pool(local(server.port()), settings());
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 3000), 35, out, true); });
  EXPECT_EQ(out.kind, FailureKind::too_large) << out.message;
  EXPECT_LE(out.body.size(), 35u);
  EXPECT_GE(out.body.size(), 25u);
  EXPECT_EQ(pool.open_connections(), 0);
}

// --- the pool ------------------------------------------------------------------------------

TEST(UpstreamPool, ACallWaitsForTheOnlySlotAndGetsIt) {
  ScriptedServer server([](ScriptedConnection& c) {
    while (c.read_request()) {
      if (!c.sleep(milliseconds(150))) return;
      c.send(ok("slow"));
    }
  });
  Loop loop;
  UpstreamPool pool(local(server.port()), settings(1, 1000));
  Outcome a, b;
  loop.run([&]() -> Task<void> {
    auto executor = co_await asio::this_coro::executor;
    bool b_done = false;
    asio::co_spawn(executor, one_call(pool, timeouts(2000, 3000), 1024, b),
                   [&](std::exception_ptr) { b_done = true; });
    co_await one_call(pool, timeouts(2000, 3000), 1024, a);
    modelgw::net::SteadyTimer t(executor);
    for (int i = 0; i < 200 && !b_done; ++i) {
      t.expires_after(milliseconds(10));
      co_await t.async_wait(modelgw::net::use_awaitable);
    }
  });
  EXPECT_EQ(a.body, "slow") << a.message;
  EXPECT_EQ(b.body, "slow") << b.message;
  EXPECT_GE(b.took_ms, 250);  // waited for a's whole exchange
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(pool.open_connections(), 1);
}

TEST(UpstreamPool, ACallFailsBusyAfterTheConnectTimeout) {
  ScriptedServer server([](ScriptedConnection& c) {
    while (c.read_request()) {
      if (!c.sleep(milliseconds(800))) return;
      c.send(ok("slow"));
    }
  });
  Loop loop;
  UpstreamPool pool(local(server.port()), settings(1, 200));
  Outcome a, b;
  loop.run([&]() -> Task<void> {
    auto executor = co_await asio::this_coro::executor;
    bool b_done = false;
    asio::co_spawn(executor, one_call(pool, timeouts(2000, 3000), 1024, b),
                   [&](std::exception_ptr) { b_done = true; });
    co_await one_call(pool, timeouts(2000, 3000), 1024, a);
    modelgw::net::SteadyTimer t(executor);
    for (int i = 0; i < 200 && !b_done; ++i) {
      t.expires_after(milliseconds(10));
      co_await t.async_wait(modelgw::net::use_awaitable);
    }
  });
  EXPECT_EQ(a.body, "slow") << a.message;
  EXPECT_EQ(b.kind, FailureKind::busy) << b.message;
  EXPECT_GE(b.took_ms, 190);
  EXPECT_LT(b.took_ms, 700);
}

TEST(UpstreamPool, AnIdleConnectionOnAnotherLoopGivesUpItsSlot) {
  ScriptedServer server(always(ok("hi")));
  Loop first, second;
  UpstreamPool pool(local(server.port()), settings(1, 500));
  Outcome a, b;
  first.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 1024, a); });
  ASSERT_EQ(pool.open_connections(), 1);  // idle on the first loop
  second.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 1024, b); });
  first.settle();  // the first loop closes its retired connection
  EXPECT_EQ(b.body, "hi") << b.message;
  EXPECT_LT(b.took_ms, 400);  // no wait for the connect timeout
  EXPECT_EQ(server.connections(), 2);
  EXPECT_EQ(pool.open_connections(), 1);
}

TEST(UpstreamPool, ARefusedConnectionFailsAsConnect) {
  int port = 0;
  {
    ScriptedServer gone(always(ok("x")));
    port = gone.port();
  }
  Loop loop;
  UpstreamPool pool(local(static_cast<std::uint16_t>(port)), settings());
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(1000, 2000), 1024, out); });
  EXPECT_EQ(out.kind, FailureKind::connect) << out.message;
  EXPECT_EQ(pool.open_connections(), 0);
}

// --- TLS and the HTTP proxy (through the fake_proxy test binary) ------------------------

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("upstream_call_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string str() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

TEST(UpstreamTls, VerifiesTheCertificateAgainstTheCaFile) {
  TempDir dir;
  const auto certs = fake_proxy::make_test_certs(dir.str());
  ScriptedServer origin(always(ok("secure")));
  fake_proxy::FakeProxyProcess tls({"--mode", "tls", "--forward-to", std::to_string(origin.port()), "--cert",
                                    certs.server_cert_pem, "--key", certs.server_key_pem});
  Loop loop;
  PoolSettings trusted = settings();
  trusted.ca_file = certs.ca_pem;
  UpstreamPool pool(local(static_cast<std::uint16_t>(tls.port()), true), trusted);
  for (int i = 0; i < 2; ++i) {
    Outcome out;
    loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(2000, 4000), 1024, out, i == 1); });
    EXPECT_FALSE(out.kind) << out.message;
    EXPECT_EQ(out.body, "secure");
  }
  EXPECT_EQ(origin.connections(), 1);  // the TLS connection was kept alive

  UpstreamPool untrusting(local(static_cast<std::uint16_t>(tls.port()), true), settings());
  Outcome refused;
  loop.run([&]() -> Task<void> { co_await one_call(untrusting, timeouts(2000, 4000), 1024, refused); });
  EXPECT_EQ(refused.kind, FailureKind::connect) << refused.message;
  EXPECT_EQ(untrusting.open_connections(), 0);
}

TEST(UpstreamProxy, PlainHttpUsesAbsoluteFormWithCredentials) {
  ScriptedServer origin(always(ok("via proxy")));
  fake_proxy::FakeProxyProcess proxy({"--mode", "forward", "--require-auth", "alice:pw"});
  Loop loop;
  PoolSettings s = settings();
  s.proxy =
      modelgw::upstream::ProxySettings{"127.0.0.1", static_cast<std::uint16_t>(proxy.port()), "alice", "pw"};
  UpstreamPool pool(local(origin.port()), s);
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(2000, 4000), 1024, out); });
  EXPECT_FALSE(out.kind) << out.message;
  EXPECT_EQ(out.body, "via proxy");
  const auto log = proxy.log();
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.back().target, "http://127.0.0.1:" + std::to_string(origin.port()) + "/v1/chat/completions");
  EXPECT_EQ(log.back().auth, std::optional<std::string>("alice"));
}

TEST(UpstreamProxy, HttpsIsTunnelledWithConnect) {
  TempDir dir;
  const auto certs = fake_proxy::make_test_certs(dir.str());
  ScriptedServer origin(always(ok("tunnelled")));
  fake_proxy::FakeProxyProcess tls({"--mode", "tls", "--forward-to", std::to_string(origin.port()), "--cert",
                                    certs.server_cert_pem, "--key", certs.server_key_pem});
  fake_proxy::FakeProxyProcess proxy({"--mode", "forward", "--require-auth", "bob:s3cret"});
  Loop loop;
  PoolSettings s = settings();
  s.ca_file = certs.ca_pem;
  s.proxy = modelgw::upstream::ProxySettings{"127.0.0.1", static_cast<std::uint16_t>(proxy.port()), "bob",
                                             "s3cret"};
  UpstreamPool pool(local(static_cast<std::uint16_t>(tls.port()), true), s);
  Outcome out;
  loop.run([&]() -> Task<void> { co_await one_call(pool, timeouts(2000, 4000), 1024, out); });
  EXPECT_FALSE(out.kind) << out.message;
  EXPECT_EQ(out.body, "tunnelled");
  const auto log = proxy.log();
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.back().method, "CONNECT");
  EXPECT_EQ(log.back().target, "127.0.0.1:" + std::to_string(tls.port()));

  // Wrong credentials: the proxy refuses the tunnel, and the message keeps the password out.
  s.proxy->password = "wrong-pw";
  UpstreamPool refused_pool(local(static_cast<std::uint16_t>(tls.port()), true), s);
  Outcome refused;
  loop.run([&]() -> Task<void> { co_await one_call(refused_pool, timeouts(2000, 4000), 1024, refused); });
  EXPECT_EQ(refused.kind, FailureKind::connect) << refused.message;
  EXPECT_NE(refused.message.find("407"), std::string::npos) << refused.message;
  EXPECT_EQ(refused.message.find("wrong-pw"), std::string::npos);
}

}  // namespace
