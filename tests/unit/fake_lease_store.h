// A lease store with the storage plugin's arithmetic, in memory: for the
// ledger and admission tests.
#pragma once

#include "budget/ledger.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>

namespace modelgw::budget::testing {

using modelgw::plugins::LeaseGrant;
using modelgw::plugins::LeaseRequest;

// spent + unsettled live leases <= limit, per (account, window), as the
// storage plugin keeps it.
class FakeStore : public modelgw::budget::LeaseStore {
 public:
  struct Lease {
    std::string account;
    std::int64_t window = 0;
    std::int64_t granted = 0;
    std::int64_t settled = 0;
    std::int64_t expires = 0;
    bool returned = false;
  };
  explicit FakeStore(std::function<std::int64_t()> now) : now_(std::move(now)) {}

  LeaseGrant take(const LeaseRequest& r) override {
    std::lock_guard lock(mutex_);
    if (fail_take) throw std::runtime_error("store down");
    ++takes;
    const std::int64_t now = now_();
    std::int64_t reserved = 0;
    for (auto& [id, l] : leases_) {
      if (l.account == r.account && l.window == r.window_start_unix_ms && live(l, now))
        reserved += std::max<std::int64_t>(0, l.granted - l.settled);
    }
    const std::int64_t spent = spent_[{r.account, r.window_start_unix_ms}];
    const std::int64_t free = std::max<std::int64_t>(0, r.limit - spent - reserved);
    std::int64_t added = std::min(r.want, free);
    if (added < r.at_least) added = 0;
    std::int64_t id = r.lease_id;
    if (id == 0 || !leases_.count(id) || !live(leases_[id], now)) {
      if (added == 0) return LeaseGrant{0, 0, 0, spent, reserved};
      id = next_++;
      leases_[id] = Lease{r.account, r.window_start_unix_ms, 0, 0, 0, false};
    }
    Lease& l = leases_[id];
    l.granted += added;
    l.expires = r.expires_unix_ms;
    return LeaseGrant{id, added, l.granted, spent, reserved + added};
  }
  void give_back(std::int64_t id, std::int64_t keep) override {
    std::lock_guard lock(mutex_);
    ++returns;
    if (auto it = leases_.find(id); it != leases_.end()) {
      it->second.granted = std::max(it->second.settled, std::min(it->second.granted, keep));
      it->second.returned = true;
    }
  }
  void renew(const std::vector<std::int64_t>& ids, std::int64_t expires) override {
    std::lock_guard lock(mutex_);
    if (fail_renew) throw std::runtime_error("store down");
    for (auto id : ids) leases_[id].expires = expires;
  }
  // What a usage insert does with a record's charges.
  void apply(const std::vector<mgw_ledger_charge>& charges) {
    std::lock_guard lock(mutex_);
    for (const auto& c : charges) {
      Lease& l = leases_.at(c.lease_id);
      l.settled += c.amount;
      spent_[{l.account, l.window}] += c.amount;
    }
  }
  std::int64_t spent(const std::string& account, std::int64_t window) {
    std::lock_guard lock(mutex_);
    return spent_[{account, window}];
  }
  std::int64_t live_unsettled(const std::string& account) {
    std::lock_guard lock(mutex_);
    std::int64_t sum = 0;
    for (auto& [id, l] : leases_) {
      if (l.account == account && live(l, now_())) sum += std::max<std::int64_t>(0, l.granted - l.settled);
    }
    return sum;
  }
  int takes = 0;
  int returns = 0;
  bool fail_renew = false;
  bool fail_take = false;

 private:
  static bool live(const Lease& l, std::int64_t now) { return l.expires > now; }
  std::function<std::int64_t()> now_;
  std::mutex mutex_;
  std::map<std::int64_t, Lease> leases_;
  std::map<std::pair<std::string, std::int64_t>, std::int64_t> spent_;
  std::int64_t next_ = 1;
};

}  // namespace modelgw::budget::testing
