// One client connection on one event loop: reads requests one after another
// (keep-alive, pipelining), hands each to the handler, writes the answers.
// Every phase has a deadline (idle, head, body, each write); what is not
// complete in time is answered 408 or dropped, so a slow or idle client holds
// a few KiB of memory and no thread.
#pragma once

#include "http/request_parser.h"
#include "http/server_call.h"
#include "net/asio.h"
#include "net/cancel_signal.h"
#include "net/read_buffer.h"

#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>

namespace modelgw::http {

struct ConnectionHub;

class Connection final : public std::enable_shared_from_this<Connection>, public ResponseChannel {
 public:
  Connection(net::TcpSocket socket, ConnectionHub& hub, std::size_t loop);
  ~Connection() override;

  // Serves the connection until it closes. `self` keeps it alive meanwhile.
  static net::Task<void> run(std::shared_ptr<Connection> self);

  // On the connection's loop: the server stops. An idle connection closes
  // now (unless it has not sent a request yet: that one is answered); a busy
  // one after its current answer.
  void stop();
  // On the connection's loop: close now; a running handler sees the client gone.
  void abort();
  // On the connection's loop: the shutdown deadline passed. A running
  // handler is cancelled (its hang-up signal fires) but the connection stays
  // open for its final answer or stream event; see ServerCall::shut_down().
  void end_call();

  // Whether the connection may be closed to make room for a new one when
  // every slot is taken: it is idle between requests, or still receiving a
  // request head (a client that has sent a whole request is never evicted).
  bool evictable() const { return !aborted_ && !closed_ && (phase_ == Phase::idle || phase_ == Phase::head); }
  bool idle() const { return phase_ == Phase::idle; }
  std::chrono::steady_clock::time_point phase_since() const { return phase_since_; }
  // On the connection's loop: close it without an answer.
  void evict();

  net::Task<bool> write(std::string_view bytes) override;
  bool closing() const override;
  bool shut_down() const override { return ended_; }

 private:
  using Clock = std::chrono::steady_clock;
  enum class Outcome { next, close, linger };
  enum class Phase { idle, head, body, busy };
  void enter(Phase phase) {
    phase_ = phase;
    phase_since_ = Clock::now();
  }

  net::Task<Outcome> serve_one();
  // Reads the next request into `request`: Outcome::next when it was read
  // (`keep_alive`: whether another may follow), else what the connection does
  // (it was refused, answered, or the client left).
  net::Task<Outcome> read_request(Request& request, bool& keep_alive);
  // Reads more bytes into buffer_ (at most `max`); false on EOF, error or deadline.
  net::Task<bool> read_more(std::size_t max);
  // By value: GCC 12 can destroy a temporary bound to a coroutine's reference
  // parameter twice when it is created in the co_await expression.
  // `method` and `path`: of a request whose head was read (for the access log).
  net::Task<Outcome> refuse(Refusal refusal, std::string method = {}, std::string path = {});
  net::Task<void> linger_and_close();
  void close();

  void arm(Clock::duration within);
  void disarm() { deadline_ = Clock::time_point::max(); }
  void start_timer();
  void on_timer(std::uint64_t generation);
  void watch_for_hangup();
  // The client hung up (EOF, a failed write): the call's hang-up signal; a
  // call that outlives its client detaches from the connection.
  void client_left();

  net::TcpSocket socket_;
  net::asio::ip::address peer_;  // read once: every request on the connection carries it
  net::SteadyTimer timer_;
  ConnectionHub& hub_;
  std::size_t loop_;
  net::ReadBuffer buffer_;  // read but not yet parsed; released while the connection is idle
  Clock::time_point deadline_ = Clock::time_point::max();
  std::uint64_t timer_generation_ = 0;
  bool timer_waiting_ = false;
  bool timed_out_ = false;
  bool in_handler_ = false;
  Phase phase_ = Phase::idle;
  Clock::time_point phase_since_ = Clock::now();
  bool watching_ = false;  // a hang-up watch is pending
  char peeked_ = 0;        // where the hang-up watch peeks (the byte stays in the socket)
  bool closed_ = false;
  bool aborted_ = false;
  bool ended_ = false;   // end_call(): the server ended the running call
  bool served_ = false;  // a request was read on this connection
  std::uint64_t watch_generation_ = 0;
  net::CancelSignal* hangup_ = nullptr;        // the running request's, while a handler runs
  net::CancelSignal* ended_signal_ = nullptr;  // its ServerCall::ended(), likewise
  ServerCall* call_ = nullptr;                 // the running call, likewise
  bool detached_ = false;                      // its call outlived the client: slot and socket given back
  std::string detached_tenant_;                // whose detached calls it counts among
};

}  // namespace modelgw::http
