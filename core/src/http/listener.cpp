#include "http/listener.h"

#include "capacity/capacity_warnings.h"
#include "errors/api_error.h"
#include "http/connection.h"
#include "http/connection_hub.h"
#include "http/http_date.h"
#include "http/request_id.h"

#include <spdlog/spdlog.h>

#include <array>
#include <cerrno>
#include <future>
#include <stdexcept>
#include <string_view>
#include <unordered_set>

namespace modelgw::http {
namespace {

namespace asio = net::asio;
using asio::ip::tcp;
using boost::system::error_code;

// Connections being told "busy" at once, at most; past this they are closed
// without an answer (the one case of a bare close: a flood).
constexpr int kMaxBusyAnswers = 1024;

// A liveness probe's request line: a full server is still alive, and a
// probe that failed for want of a slot would get the process restarted.
bool is_health_probe(std::string_view head) {
  head = head.substr(0, head.find("\r\n"));
  return head == "GET /healthz HTTP/1.1" || head == "GET /healthz HTTP/1.0";
}

// Tells a client over the connection limit to come back, then closes; a
// GET /healthz is answered as usual.
net::Task<void> answer_busy(net::TcpSocket accepted, std::shared_ptr<std::atomic<int>> answering) {
  auto socket = std::make_shared<net::TcpSocket>(std::move(accepted));
  const std::string request_id = new_request_id();
  // Each step is bounded: a client that neither sends, reads nor closes is cut.
  net::SteadyTimer timer(socket->get_executor());
  const auto bound = [&](std::chrono::milliseconds within) {
    timer.expires_after(within);
    timer.async_wait([socket](const error_code& ec) {
      error_code ignored;
      if (!ec) socket->cancel(ignored);
    });
  };
  error_code ec;
  // The request line usually arrives with the connection: one short read.
  std::array<char, 1024> first;
  bound(std::chrono::milliseconds(250));
  const std::size_t got =
      co_await socket->async_read_some(asio::buffer(first), asio::redirect_error(net::use_awaitable, ec));
  timer.cancel();
  bound(std::chrono::seconds(1));
  std::string out;
  if (!ec && is_health_probe(std::string_view(first.data(), got))) {
    const std::string body = "{\"request_id\":\"" + request_id + "\",\"status\":\"ok\"}";
    out = std::string("HTTP/1.1 200 OK\r\nDate: ") + std::string(http_date_now()) +
          "\r\nServer: modelgw\r\nContent-Type: application/json\r\nContent-Length: " +
          std::to_string(body.size()) + "\r\nX-Request-Id: " + request_id + "\r\nConnection: close\r\n\r\n" +
          body;
  } else {
    const std::string body = errors::error_envelope(
        errors::ApiError{
            503, "server_busy", "the gateway has all the connections it accepts open; retry shortly", {}, 1},
        request_id);
    out = std::string("HTTP/1.1 503 Service Unavailable\r\nDate: ") + std::string(http_date_now()) +
          "\r\nServer: modelgw\r\nContent-Type: application/json\r\nContent-Length: " +
          std::to_string(body.size()) + "\r\nRetry-After: 1\r\nX-Request-Id: " + request_id +
          "\r\nConnection: close\r\n\r\n" + body;
  }
  ec = {};
  co_await asio::async_write(*socket, asio::buffer(out), asio::redirect_error(net::use_awaitable, ec));
  // Read what the client sent (briefly) so the close does not reset the answer away.
  if (!ec) {
    socket->shutdown(asio::socket_base::shutdown_send, ec);
    std::array<char, 2048> scrap;
    while (!ec) {
      co_await socket->async_read_some(asio::buffer(scrap), asio::redirect_error(net::use_awaitable, ec));
    }
  }
  timer.cancel();
  socket->close(ec);
  answering->fetch_sub(1, std::memory_order_relaxed);
}

// Closes the connection of `live` that does least with its slot; false when
// none may be closed (each is serving a request).
bool evict_one(std::unordered_set<Connection*>& live) {
  Connection* victim = nullptr;
  for (Connection* c : live) {
    if (!c->evictable()) continue;
    if (victim == nullptr || (c->idle() && !victim->idle()) ||
        (c->idle() == victim->idle() && c->phase_since() < victim->phase_since())) {
      victim = c;
    }
  }
  if (victim == nullptr) return false;
  victim->evict();
  return true;
}

}  // namespace

struct Listener::Acceptor {
  explicit Acceptor(asio::io_context& ctx) : acceptor(ctx), backoff(ctx) {}
  net::TcpAcceptor acceptor;
  net::SteadyTimer backoff;
  std::shared_ptr<std::atomic<int>> answering_busy = std::make_shared<std::atomic<int>>(0);
  std::size_t next_loop = 0;
};

Listener::Listener(net::EventLoops& loops, const config::ServerConfig& config, Handler& handler)
    : loops_(loops) {
  hub_ = std::make_shared<ConnectionHub>(
      handler, RequestLimits{config.max_header_bytes, config.max_body_bytes},
      ConnectionTimeouts{std::chrono::milliseconds(config.header_timeout_ms),
                         std::chrono::milliseconds(config.body_timeout_ms),
                         std::chrono::milliseconds(config.send_timeout_ms),
                         std::chrono::milliseconds(config.keep_alive_timeout_ms),
                         std::chrono::milliseconds(config.keep_alive_scarce_ms)},
      config.max_connections, loops.size(), config.max_detached_calls_per_tenant);
  acceptor_ = std::make_shared<Acceptor>(loops.at(0));
  try {
    const tcp::endpoint endpoint(asio::ip::make_address(config.host), config.port);
    auto& a = acceptor_->acceptor;
    a.open(endpoint.protocol());
    // SO_REUSEADDR lets a restart bind while old connections sit in
    // TIME_WAIT; never SO_REUSEPORT, which would let a second process share
    // the port and silently take half the traffic.
    a.set_option(net::TcpAcceptor::reuse_address(true));
    a.bind(endpoint);
    a.listen(
        capacity::kListenBacklog);  // room for a burst of connects (thousands of streams opening at once)
    port_ = a.local_endpoint().port();
  } catch (const boost::system::system_error& e) {
    throw std::runtime_error("server.listen: cannot listen on " + config.host + ":" +
                             std::to_string(config.port) + ": " + e.code().message());
  }
}

Listener::~Listener() {
  error_code ec;
  acceptor_->acceptor.close(ec);
}

void Listener::start() {
  auto acceptor = acceptor_;
  auto hub = hub_;
  net::EventLoops* loops = &loops_;
  asio::co_spawn(
      acceptor->acceptor.get_executor(),
      [acceptor, hub, loops]() -> net::Task<void> {
        bool warned = false;
        for (;;) {
          const std::size_t loop = acceptor->next_loop++ % loops->size();
          error_code ec;
          net::TcpSocket socket = co_await acceptor->acceptor.async_accept(
              loops->at(loop), asio::redirect_error(net::use_awaitable, ec));
          if (ec) {
            if (hub->stopping.load() || ec == asio::error::operation_aborted ||
                !acceptor->acceptor.is_open()) {
              co_return;
            }
            if (ec == asio::error::no_descriptors || ec.value() == ENFILE ||
                ec == asio::error::no_buffer_space || ec == asio::error::no_memory) {
              // Out of file descriptors: back off rather than spin; the
              // connection waits in the backlog meanwhile.
              if (!warned) spdlog::warn("accept failed ({}); raise the file descriptor limit", ec.message());
              warned = true;
              acceptor->backoff.expires_after(std::chrono::milliseconds(50));
              co_await acceptor->backoff.async_wait(asio::redirect_error(net::use_awaitable, ec));
            }
            continue;
          }
          socket.set_option(tcp::no_delay(true), ec);
          if (hub->open.load(std::memory_order_relaxed) >= hub->max_connections) {
            // Every slot is taken: on the new connection's loop, make room by
            // closing the connection that does least with its slot (idle
            // between requests, else the longest still sending its head),
            // so idle and trickling clients cannot lock others out; when
            // every connection there is serving a request, answer 503.
            asio::post(loops->at(loop),
                       [hub, loop, socket = std::move(socket), busy = acceptor->answering_busy]() mutable {
                         const auto ex = socket.get_executor();
                         if (evict_one(hub->live[loop])) {
                           hub->open.fetch_add(1, std::memory_order_relaxed);
                           auto connection = std::make_shared<Connection>(std::move(socket), *hub, loop);
                           asio::co_spawn(ex, Connection::run(std::move(connection)), asio::detached);
                         } else if (busy->fetch_add(1, std::memory_order_relaxed) < kMaxBusyAnswers) {
                           asio::co_spawn(ex, answer_busy(std::move(socket), busy), asio::detached);
                         } else {
                           busy->fetch_sub(1, std::memory_order_relaxed);
                           error_code ignored;
                           socket.close(ignored);
                         }
                       });
            continue;
          }
          hub->open.fetch_add(1, std::memory_order_relaxed);
          auto connection = std::make_shared<Connection>(std::move(socket), *hub, loop);
          asio::co_spawn(loops->at(loop), Connection::run(std::move(connection)), asio::detached);
        }
      },
      asio::detached);
}

void Listener::drain() {
  if (hub_->stopping.exchange(true)) return;
  for (std::size_t i = 0; i < loops_.size(); ++i) {
    asio::post(loops_.at(i), [hub = hub_, i] {
      for (Connection* c : hub->live[i]) c->stop();
    });
  }
}

void Listener::stop_accepting() {
  drain();
  auto acceptor = acceptor_;
  auto closed = std::make_shared<std::promise<void>>();
  auto done = closed->get_future();
  asio::post(acceptor->acceptor.get_executor(), [acceptor, closed] {
    error_code ignored;
    acceptor->acceptor.close(ignored);
    closed->set_value();
  });
  // Closed when this returns, so a connect is refused rather than left in
  // the backlog unanswered while the process finishes; bounded should the
  // loop be stuck.
  done.wait_for(std::chrono::seconds(1));
}

void Listener::end_calls() {
  for (std::size_t i = 0; i < loops_.size(); ++i) {
    asio::post(loops_.at(i), [hub = hub_, i] {
      const auto live = hub->live[i];  // an ended call may end its connection, which edits the set
      for (Connection* c : live) c->end_call();
    });
  }
}

void Listener::abort_all() {
  hub_->stopping.store(true);
  for (std::size_t i = 0; i < loops_.size(); ++i) {
    asio::post(loops_.at(i), [hub = hub_, i] {
      const auto live = hub->live[i];  // abort() may end a connection, which edits the set
      for (Connection* c : live) c->abort();
    });
  }
}

int Listener::in_flight() const {
  return hub_->in_flight.load();
}

int Listener::open_connections() const {
  return hub_->open.load();
}

}  // namespace modelgw::http
