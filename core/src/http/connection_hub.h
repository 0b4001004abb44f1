// What every connection of one listener shares: the handler, the limits, the
// counters the listener reports, and per event loop the set of live
// connections (each set touched only from its own loop).
#pragma once

#include "http/request_parser.h"
#include "http/server_call.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>
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

// Calls that go on after their client left, counted per tenant: they hold
// no connection slot, so they are bounded here instead. Touched only when a
// client leaves such a call and when it ends, never per request.
class DetachedCalls {
 public:
  explicit DetachedCalls(int per_tenant) : per_tenant_(per_tenant) {}
  // False when `tenant` already has its most.
  bool admit(const std::string& tenant) {
    std::lock_guard lock(mutex_);
    int& n = by_tenant_[tenant];
    if (n >= per_tenant_) {
      if (n == 0) by_tenant_.erase(tenant);
      return false;
    }
    ++n;
    ++total_;
    return true;
  }
  void release(const std::string& tenant) {
    std::lock_guard lock(mutex_);
    auto it = by_tenant_.find(tenant);
    if (it == by_tenant_.end()) return;
    --total_;
    if (--it->second <= 0) by_tenant_.erase(it);
  }
  int total() const {
    std::lock_guard lock(mutex_);
    return total_;
  }

 private:
  const int per_tenant_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, int> by_tenant_;
  int total_ = 0;
};

struct ConnectionHub {
  ConnectionHub(Handler& h, RequestLimits l, ConnectionTimeouts t, int max, std::size_t loops,
                int detached_per_tenant)
      : handler(h),
        limits(l),
        timeouts(t),
        max_connections(max),
        detached(detached_per_tenant),
        live(loops) {}

  Handler& handler;
  RequestLimits limits;
  ConnectionTimeouts timeouts;
  int max_connections = 10000;

  std::atomic<int> open{0};  // client connections being served (a detached call holds none)
  DetachedCalls detached;
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
