// What every connection of one listener shares: the handler, the limits, the
// counters the listener reports, and per event loop the set of live
// connections (each set touched only from its own loop).
#pragma once

#include "http/request_parser.h"
#include "http/server_call.h"

#include <atomic>
#include <chrono>
#include <unordered_set>
#include <vector>

namespace modelgw::http {

class Connection;

struct ConnectionTimeouts {
  std::chrono::milliseconds header{10000};
  std::chrono::milliseconds body{60000};
  std::chrono::milliseconds send{60000};
  std::chrono::milliseconds keep_alive{15000};
  std::chrono::milliseconds keep_alive_scarce{1000};
};

struct ConnectionHub {
  ConnectionHub(Handler& h, RequestLimits l, ConnectionTimeouts t, int max, std::size_t loops)
      : handler(h), limits(l), timeouts(t), max_connections(max), live(loops) {}

  Handler& handler;
  RequestLimits limits;
  ConnectionTimeouts timeouts;
  int max_connections = 10000;

  std::atomic<int> open{0};       // client connections being served
  std::atomic<int> in_flight{0};  // requests inside the handler
  std::atomic<bool> stopping{false};
  std::vector<std::unordered_set<Connection*>> live;  // by loop

  // Idle connections wait less once connections are scarce.
  std::chrono::milliseconds idle_timeout() const {
    return open.load(std::memory_order_relaxed) * 4 >= max_connections * 3 ? timeouts.keep_alive_scarce
                                                                           : timeouts.keep_alive;
  }
};

}  // namespace modelgw::http
