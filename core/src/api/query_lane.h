// Where a tenant's reads of its records (GET /v1/usage, /v1/budgets,
// /v1/audit) run: threads of their own, apart from the blocking pool the
// request path's storage calls use, so a long scan delays other scans and
// never another tenant's chat; and at most a few at a time per tenant, so
// one tenant cannot take every query thread either.
#pragma once

#include "net/blocking_pool.h"

#include <cstdint>
#include <map>
#include <mutex>

namespace modelgw::api {

class QueryLane {
 public:
  QueryLane(int threads, int per_tenant) : pool_(threads, "mgw-query"), per_tenant_(per_tenant) {}

  // A query's place in the lane; empty when the tenant has its most running.
  class Ticket {
   public:
    Ticket() = default;
    Ticket(QueryLane* lane, std::int64_t tenant) : lane_(lane), tenant_(tenant) {}
    Ticket(Ticket&& o) noexcept : lane_(o.lane_), tenant_(o.tenant_) { o.lane_ = nullptr; }
    Ticket& operator=(Ticket&& o) noexcept {
      if (this != &o) {
        release();
        lane_ = o.lane_;
        tenant_ = o.tenant_;
        o.lane_ = nullptr;
      }
      return *this;
    }
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket() { release(); }
    explicit operator bool() const { return lane_ != nullptr; }

   private:
    void release() {
      if (lane_ != nullptr) lane_->leave(tenant_);
      lane_ = nullptr;
    }
    QueryLane* lane_ = nullptr;
    std::int64_t tenant_ = 0;
  };

  Ticket enter(std::int64_t tenant) {
    std::lock_guard lock(mutex_);
    int& running = running_[tenant];
    if (running >= per_tenant_) return {};
    ++running;
    return Ticket(this, tenant);
  }
  net::BlockingPool& pool() { return pool_; }
  int per_tenant() const { return per_tenant_; }
  void stop() { pool_.stop(); }

 private:
  void leave(std::int64_t tenant) {
    std::lock_guard lock(mutex_);
    auto it = running_.find(tenant);
    if (it != running_.end() && --it->second <= 0) running_.erase(it);
  }

  net::BlockingPool pool_;
  const int per_tenant_;
  std::mutex mutex_;
  std::map<std::int64_t, int> running_;
};

}  // namespace modelgw::api
