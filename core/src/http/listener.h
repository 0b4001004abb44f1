// The listening socket: accepts client connections on one loop and spreads
// them over all event loops (round robin), each then served there by an
// http::Connection. Over server.max_connections a connection gets a 503 in
// the error envelope and is closed, never a bare reset.
#pragma once

#include "config/config.h"
#include "http/server_call.h"
#include "net/event_loops.h"

#include <cstdint>
#include <memory>

namespace modelgw::http {

struct ConnectionHub;

class Listener {
 public:
  // Binds and listens now (a taken port throws std::runtime_error with one
  // line); accepts nothing until start().
  Listener(net::EventLoops& loops, const config::ServerConfig& config, Handler& handler);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  void start();
  std::uint16_t port() const { return port_; }

  // Draining: idle connections close now, busy ones after their answer
  // (which says `Connection: close`); connections still accepted get their
  // first request answered: /readyz and /healthz as usual, anything else a
  // 503 `shutting_down`. Thread-safe.
  void drain();
  // As drain(), and the listening socket closes: new connections are
  // refused. Waits (at most 1 s) for the close: call it from outside the loops.
  void stop_accepting();
  // The shutdown deadline passed: every running call is cancelled and ends
  // with a 503 `shutting_down` (a stream: its final error event) while its
  // connection stays open for that. Thread-safe.
  void end_calls();
  // Closes every connection now; running handlers see their client gone.
  void abort_all();

  int in_flight() const;         // requests inside a handler
  int open_connections() const;  // client connections being served

 private:
  struct Acceptor;
  net::EventLoops& loops_;
  std::shared_ptr<ConnectionHub> hub_;
  std::shared_ptr<Acceptor> acceptor_;
  std::uint16_t port_ = 0;
};

}  // namespace modelgw::http
