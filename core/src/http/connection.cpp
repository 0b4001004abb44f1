#include "http/connection.h"

#include "errors/api_error.h"
#include "http/access_line.h"
#include "http/connection_hub.h"
#include "http/request_id.h"

#include <boost/beast/http/error.hpp>

#include "logging/request_log.h"

#include <spdlog/spdlog.h>

namespace modelgw::http {
namespace {

namespace asio = net::asio;
using boost::system::error_code;

// Both one byte short of a power of two: the buffer is a std::string, which
// allocates its capacity plus one, so 2047 is a 2 KiB block where 2048 took
// jemalloc's next size class (2.5 KiB), held by every idle connection.
constexpr std::size_t kReadChunk = 16 * 1024 - 1;
// What an idle connection holds while it waits for its next request.
constexpr std::size_t kIdleRead = 2 * 1024 - 1;
// A chunk-size line (or trailer) that long is an attack, not a body.
constexpr std::size_t kMaxUnparsedBody = 64 * 1024;
// After an early answer (413, a refused request), what is still read and
// thrown away so the close does not reset the answer away (RFC 9112 9.6).
constexpr std::size_t kLingerBytes = 1024 * 1024;
constexpr std::chrono::seconds kLingerTime{2};

// Served while the gateway drains (the load balancer's view of it).
bool is_probe(std::string_view path) {
  return path == "/readyz" || path == "/healthz";
}

}  // namespace

Connection::Connection(net::TcpSocket socket, ConnectionHub& hub, std::size_t loop)
    : socket_(std::move(socket)), timer_(socket_.get_executor()), hub_(hub), loop_(loop) {
  boost::system::error_code ec;
  const auto endpoint = socket_.remote_endpoint(ec);
  if (!ec) peer_ = endpoint.address();
}

Connection::~Connection() = default;

net::Task<void> Connection::run(std::shared_ptr<Connection> self) {
  ConnectionHub& hub = self->hub_;
  hub.live[self->loop_].insert(self.get());
  try {
    for (;;) {
      const Outcome outcome = co_await self->serve_one();
      if (outcome == Outcome::next && !self->aborted_ && !hub.stopping.load(std::memory_order_relaxed))
        continue;
      if (outcome == Outcome::linger && !self->aborted_) co_await self->linger_and_close();
      break;
    }
  } catch (const std::exception& e) {
    spdlog::error("client connection failed: {}", e.what());
  } catch (...) {
    spdlog::error("client connection failed");
  }
  self->close();
  hub.live[self->loop_].erase(self.get());
  if (!self->detached_) hub.open.fetch_sub(1, std::memory_order_relaxed);  // a detached one gave it back
}

void Connection::client_left() {
  if (hangup_) hangup_->emit();
  if (call_ == nullptr || !call_->outlives_client() || detached_) return;
  // The call goes on without its client (a retry will replay its answer):
  // the connection's slot and socket go back now, so such calls cannot fill
  // the server while their clients hold nothing; they are bounded per
  // tenant instead, and past that bound the call ends like any other.
  if (!hub_.detached.admit(call_->access_note().tenant)) {
    call_->stop_outliving();
    return;
  }
  detached_ = true;
  detached_tenant_ = call_->access_note().tenant;
  hub_.open.fetch_sub(1, std::memory_order_relaxed);
  close();
}

net::Task<Connection::Outcome> Connection::serve_one() {
  // Read in a coroutine of its own: the parser and every refusal live in its
  // frame, freed once the request is read, not held for a whole stream.
  Request request;
  bool keep_alive = false;
  if (const Outcome read = co_await read_request(request, keep_alive); read != Outcome::next) co_return read;
  enter(Phase::busy);
  buffer_.release_if_empty();  // a long request or stream holds no read buffer

  net::CancelSignal hangup;
  ServerCall call(std::move(request), new_request_id(), *this, hangup, socket_.get_executor());
  if (!keep_alive) call.close_after();
  hangup_ = &hangup;
  ended_signal_ = &call.ended();
  call_ = &call;
  in_handler_ = true;
  hub_.in_flight.fetch_add(1, std::memory_order_relaxed);
  if (buffer_.empty()) watch_for_hangup();
  try {
    co_await hub_.handler.handle(call);
  } catch (const std::exception& e) {
    logging::for_request(call.request_id()).error("request failed in the gateway: {}", e.what());
  } catch (...) {
    logging::for_request(call.request_id()).error("request failed in the gateway");
  }
  // A handler that gave no answer is a gateway bug: 500, unless the client
  // left (nobody to answer; its access line says 499).
  if (!call.answered() && !call.client_gone()) call.send_error(errors::internal_error());
  const bool delivered = !call.client_gone() && co_await call.flush();
  in_handler_ = false;
  hangup_ = nullptr;
  ended_signal_ = nullptr;
  call_ = nullptr;
  if (watching_) {
    ++watch_generation_;
    watching_ = false;
    error_code ec;
    socket_.cancel(ec);  // the hang-up watch; nothing else is pending now
  }
  hub_.in_flight.fetch_sub(1, std::memory_order_relaxed);
  log_access(call, delivered);  // every request that reached a handler ends here
  if (detached_) {
    hub_.detached.release(detached_tenant_);
    co_return Outcome::close;
  }

  if (!delivered || aborted_) co_return Outcome::close;
  // A stream that did not end (the handler gave up on it) ends with the
  // connection, so the client sees it cut rather than waiting.
  if (call.streaming() && !call.finished()) co_return Outcome::close;
  if (!call.keep_alive()) co_return Outcome::linger;
  co_return Outcome::next;
}

net::Task<Connection::Outcome> Connection::read_request(Request& request, bool& keep_alive) {
  const RequestLimits& limits = hub_.limits;

  // RFC 9112 section 2.2: empty lines before a request line are ignored.
  while (buffer_.pending().starts_with("\r\n")) buffer_.consume(2);

  // Idle: wait for the next request with a read into a small buffer. A read
  // rather than a readiness wait: Asio 1.74 re-arms the descriptor
  // (epoll_ctl) for every wait, never for a read, and the read is the system
  // call the request needs anyway. Most requests fit the small buffer whole.
  if (buffer_.empty()) {
    // While draining, a connection that was accepted then still gets its
    // first request answered (a probe, or a 503 below) rather than a bare close.
    if (served_ && hub_.stopping.load(std::memory_order_relaxed)) co_return Outcome::close;
    arm(hub_.idle_timeout());
    enter(Phase::idle);
    if (!co_await read_more(kIdleRead) || timed_out_ || closed_) co_return Outcome::close;
  }

  // The head, whole, within the header deadline.
  enter(Phase::head);
  arm(hub_.timeouts.header);
  std::size_t head_end = std::string::npos;
  std::size_t scanned = 0;
  while (true) {
    if (const std::size_t empty = leading_empty_lines(buffer_.pending()); empty > 0) {
      buffer_.consume(empty);
      scanned = 0;
    }
    if ((head_end = find_head_end(buffer_.pending(), scanned)) != std::string::npos) break;
    if (buffer_.size() > limits.max_header_bytes) break;
    scanned = buffer_.size();
    if (!co_await read_more(limits.max_header_bytes + 1 - buffer_.size())) {
      if (timed_out_ && !buffer_.empty() && !aborted_) {
        Refusal late{408, "request_timeout",
                     "the request head did not arrive within " +
                         std::to_string(hub_.timeouts.header.count()) + " ms (server.header_timeout_ms)"};
        co_return co_await refuse(std::move(late));
      }
      co_return Outcome::close;
    }
  }
  if (head_end == std::string::npos || head_end > limits.max_header_bytes) {
    Refusal too_long{431, "request_header_fields_too_large",
                     "the request head is longer than the " + std::to_string(limits.max_header_bytes) +
                         " bytes the gateway reads (server.max_header_bytes)"};
    co_return co_await refuse(std::move(too_long));
  }
  if (auto bad = scan_head_bytes(buffer_.pending().substr(0, head_end))) {
    co_return co_await refuse(std::move(*bad));
  }

  enter(Phase::body);
  request.remote_address = peer_;
  RequestParser parser(request, limits);
  error_code ec;
  std::size_t used = parser.put(asio::buffer(buffer_.pending()), ec);
  if (ec == boost::beast::http::error::need_more) ec = {};
  if ((ec && !request.body_too_large) || !parser.is_header_done()) {
    Refusal bad = parser.refusal(ec, buffer_.pending());
    if (!parser.is_header_done()) co_return co_await refuse(std::move(bad));
    co_return co_await refuse(std::move(bad), request.method, std::string(request.path()));
  }
  buffer_.consume(used);

  // The body, whole, within the body deadline (unless it is over the limit:
  // then it is not read, and the handler answers 413).
  if (!request.body_too_large && !parser.is_done()) {
    if (parser.expects_continue() && buffer_.empty()) {
      if (!co_await write("HTTP/1.1 100 Continue\r\n\r\n")) co_return Outcome::close;
    }
    arm(hub_.timeouts.body);
    while (!parser.is_done()) {
      if (buffer_.size() > kMaxUnparsedBody) {
        Refusal bad{400, "invalid_parameter",
                    "the chunked request body is malformed (a chunk-size line or trailer is too long)"};
        co_return co_await refuse(std::move(bad), request.method, std::string(request.path()));
      }
      if (!co_await read_more(kReadChunk)) {
        if (timed_out_) {
          Refusal late{408, "request_timeout",
                       "the request body did not arrive within " +
                           std::to_string(hub_.timeouts.body.count()) + " ms (server.body_timeout_ms)"};
          co_return co_await refuse(std::move(late), request.method, std::string(request.path()));
        }
        co_return Outcome::close;
      }
      used = parser.put(asio::buffer(buffer_.pending()), ec);
      if (ec == boost::beast::http::error::need_more) ec = {};
      if (request.body_too_large) break;
      if (ec) {
        Refusal bad = parser.refusal(ec, buffer_.pending());
        co_return co_await refuse(std::move(bad), request.method, std::string(request.path()));
      }
      buffer_.consume(used);
    }
  }
  disarm();
  served_ = true;
  if (hub_.stopping.load(std::memory_order_relaxed) && !is_probe(request.path())) {
    // Draining: only the probes are served, so a load balancer sees /readyz
    // fail; everything else is told to go elsewhere.
    Refusal draining{503, "shutting_down", "the gateway is shutting down; retry on another instance", 1};
    co_return co_await refuse(std::move(draining), request.method, std::string(request.path()));
  }
  keep_alive = parser.keep_alive() && !request.body_too_large;
  co_return Outcome::next;
}

net::Task<bool> Connection::read_more(std::size_t max) {
  const std::size_t want = std::min(max, kReadChunk);
  if (want == 0) co_return false;
  error_code ec;
  const std::size_t n =
      co_await socket_.async_read_some(buffer_.prepare(want), asio::redirect_error(net::use_awaitable, ec));
  buffer_.commit(n);
  co_return !ec && n > 0 && !aborted_;
}

net::Task<Connection::Outcome> Connection::refuse(Refusal refusal, std::string method, std::string path) {
  const std::string request_id = new_request_id();
  logging::for_request(request_id)
      .info("request refused before routing: {} {}", refusal.status, refusal.message);
  net::CancelSignal none;
  Request nothing;
  nothing.method = std::move(method);
  nothing.target = std::move(path);
  ServerCall call(std::move(nothing), request_id, *this, none, socket_.get_executor());
  call.close_after();  // where the next request would start is unknown
  call.send_error(errors::ApiError{refusal.status, refusal.code, refusal.message, {}, refusal.retry_after_s});
  const bool delivered = co_await call.flush();
  log_access(call, delivered);  // and every request refused before one
  co_return Outcome::linger;
}

net::Task<void> Connection::linger_and_close() {
  error_code ec;
  socket_.shutdown(asio::socket_base::shutdown_send, ec);
  arm(kLingerTime);
  buffer_.clear();
  std::array<char, 4096> scrap;
  std::size_t total = 0;
  while (total < kLingerBytes && !ec && !timed_out_) {
    total +=
        co_await socket_.async_read_some(asio::buffer(scrap), asio::redirect_error(net::use_awaitable, ec));
  }
  close();
}

net::Task<bool> Connection::write(std::string_view bytes) {
  if (closed_ || aborted_) co_return false;
  const Clock::time_point saved = deadline_;
  arm(hub_.timeouts.send);
  error_code ec;
  co_await asio::async_write(socket_, asio::buffer(bytes.data(), bytes.size()),
                             asio::redirect_error(net::use_awaitable, ec));
  const bool late = timed_out_;
  deadline_ = saved;  // back to the phase's deadline (none while a handler runs)
  if (ec || late) {
    client_left();
    co_return false;
  }
  co_return true;
}

bool Connection::closing() const {
  return hub_.stopping.load(std::memory_order_relaxed);
}

void Connection::stop() {
  // One that has not sent its first request yet may be a probe arriving as
  // the drain starts: it is answered (serve_one), not dropped.
  if (phase_ == Phase::idle && served_) {
    error_code ec;
    socket_.cancel(ec);
  }
}

void Connection::abort() {
  aborted_ = true;
  if (hangup_) hangup_->emit();
  if (ended_signal_) ended_signal_->emit();
  error_code ec;
  socket_.shutdown(asio::socket_base::shutdown_both, ec);
  socket_.cancel(ec);
}

void Connection::end_call() {
  if (!in_handler_ || ended_ || aborted_) return;
  ended_ = true;
  if (hangup_) hangup_->emit();
  if (ended_signal_) ended_signal_->emit();  // a call that outlives its client ends too
}

void Connection::evict() {
  aborted_ = true;  // ends the connection without an answer
  error_code ec;
  socket_.cancel(ec);
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  ++timer_generation_;
  timer_.cancel();
  error_code ec;
  socket_.close(ec);
}

// The deadline is one time point per connection; the timer is re-armed only
// when it would fire too late, so setting a deadline costs no system call.
void Connection::arm(Clock::duration within) {
  deadline_ = Clock::now() + within;
  timed_out_ = false;
  if (!timer_waiting_ || deadline_ < timer_.expiry()) start_timer();
}

void Connection::start_timer() {
  timer_waiting_ = true;
  timer_.expires_at(deadline_);  // a pending wait ends aborted; its generation is stale
  timer_.async_wait([self = shared_from_this(), generation = ++timer_generation_](const error_code&) {
    self->on_timer(generation);
  });
}

void Connection::on_timer(std::uint64_t generation) {
  if (generation != timer_generation_) return;
  timer_waiting_ = false;
  if (closed_ || deadline_ == Clock::time_point::max()) return;
  if (Clock::now() < deadline_) {
    start_timer();
    return;
  }
  timed_out_ = true;
  error_code ec;
  socket_.cancel(ec);
}

// While a handler works, a one-byte peek at the socket tells a client that
// hung up (EOF, reset) from one that pipelined its next request (data, left
// where it is for the next read). A peek, not a readiness wait: Asio 1.74
// re-arms the descriptor (epoll_ctl) for every wait, never for a read.
void Connection::watch_for_hangup() {
  watching_ = true;
  socket_.async_receive(
      asio::buffer(&peeked_, 1), asio::socket_base::message_peek,
      [self = shared_from_this(), generation = watch_generation_](const error_code& ec, std::size_t n) {
        if (ec == asio::error::operation_aborted || generation != self->watch_generation_ ||
            !self->in_handler_)
          return;
        self->watching_ = false;
        if (!ec && n > 0) return;  // the next request, early: the client is there
        self->client_left();
      });
}

}  // namespace modelgw::http
