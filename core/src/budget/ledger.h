// The process's side of every ledger (budgets, credit accounts, rate limits):
// leases taken from the store, spent in memory. A request holds what it may
// cost on every ledger that applies, all or none, under one mutex: the common
// case touches no store. When a lease runs short, refill() grows it from the
// store (blocking: call it off the event loops); near the limit the store
// grants one request at a time, so the sum of the processes' leases never
// passes the limit. What a request really cost is settled into its usage
// record as charges, which storage applies with the record.
//
// Leases are renewed while used and returned when idle, at a window's end and
// at stop; a process that dies loses its leases after lease_ttl_ms.
#pragma once

#include "budget/window.h"
#include "plugins/storage.h"
#include "util/spin_mutex.h"

#include <modelgw/plugin.h>

#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace modelgw::budget {

// Where leases come from: the storage plugin (an interface, for tests).
class LeaseStore {
 public:
  virtual ~LeaseStore() = default;
  virtual plugins::LeaseGrant take(const plugins::LeaseRequest& request) = 0;
  virtual void give_back(std::int64_t lease_id, std::int64_t keep) = 0;
  virtual void renew(const std::vector<std::int64_t>& lease_ids, std::int64_t expires_unix_ms) = 0;
};

class StorageLeases : public LeaseStore {
 public:
  explicit StorageLeases(plugins::Storage& storage) : storage_(storage) {}
  plugins::LeaseGrant take(const plugins::LeaseRequest& request) override {
    return storage_.take_lease(request);
  }
  void give_back(std::int64_t lease_id, std::int64_t keep) override { storage_.return_lease(lease_id, keep); }
  void renew(const std::vector<std::int64_t>& lease_ids, std::int64_t expires_unix_ms) override {
    storage_.renew_leases(lease_ids, expires_unix_ms);
  }

 private:
  plugins::Storage& storage_;
};

// One limited quantity: a budget's money, a credit account, a rate limit.
struct Account {
  std::string name;  // the store's account key, e.g. "budget:17"
  Window window = Window::none;
  std::int64_t limit = 0;
};

struct Draw {
  const Account* account = nullptr;  // outlives the call (the tenant's prepared parts)
  std::int64_t amount = 0;
};

struct LedgerOptions {
  std::int64_t lease_ttl_ms = 30000;   // a dead process's leases are freed after this
  std::int64_t idle_return_ms = 5000;  // an unused lease goes back to the store after this
  std::int64_t slice_divisor = 10;     // a lease asks for 1/divisor of the limit (or one request, if more)
  std::string holder;                  // who holds the leases, for operators
};

class Ledger;

// What one request holds. Settle or release it; one dropped is released.
class Hold {
 public:
  Hold() = default;
  Hold(Hold&& other) noexcept { *this = std::move(other); }
  Hold& operator=(Hold&& other) noexcept;
  ~Hold();
  bool empty() const { return parts_.empty(); }
  std::size_t size() const { return parts_.size(); }
  std::int64_t amount(std::size_t index) const { return parts_[index].amount; }

 private:
  friend class Ledger;
  struct Part {
    void* slot = nullptr;
    std::int64_t amount = 0;
  };
  Ledger* ledger_ = nullptr;
  // A request draws on a handful of accounts: held inline, not allocated.
  boost::container::small_vector<Part, 8> parts_;
};

// Why a hold could not be had.
struct Shortfall {
  std::size_t index = 0;    // which draw
  std::int64_t needed = 0;  // what its account must have free (this draw, and any other on it)
};

class Ledger {
 public:
  using Clock = std::function<std::int64_t()>;  // Unix ms
  Ledger(LeaseStore& store, LedgerOptions options, Clock now_unix_ms);
  ~Ledger();
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // In memory, never blocks on the store: holds every draw from this
  // process's leases, or none and says which is short. With `remaining`
  // (one per draw), writes what is left of each after the hold, as
  // remaining() would, under the same lock.
  bool try_hold(std::span<const Draw> draws, Hold& out, Shortfall& shortfall,
                std::span<std::int64_t> remaining = {});

  // Blocking (the store): grows the lease of `account`'s current window until
  // `needed` of it is free here. False when the window has not that much left.
  bool refill(const Account& account, std::int64_t needed);

  // Ends a hold at the real amounts (one per draw, in order): the difference
  // goes back to the lease; each non-zero amount becomes a charge for the
  // request's usage record.
  void settle(Hold& hold, std::span<const std::int64_t> actual, std::vector<mgw_ledger_charge>& charges);
  void release(Hold& hold);

  // What is left in `account`'s current window as this process last saw the
  // store, plus its own unspent lease. For reports and rate-limit headers.
  std::int64_t remaining(const Account& account);

  // Renews leases in use, returns idle ones and those of past windows.
  // Blocking; called by a maintenance thread every lease_ttl_ms / 3.
  void maintain();
  // Returns every lease (at stop).
  void return_all();

 private:
  struct Slot;
  Slot& slot_of(const Account& account, std::int64_t now);  // mutex_ held
  bool usable(const Slot& slot, std::int64_t now) const;
  static std::int64_t left_in(const Slot& slot);
  std::int64_t expiry(std::int64_t now) const { return now + options_.lease_ttl_ms; }

  LeaseStore& store_;
  LedgerOptions options_;
  Clock now_;
  util::SpinMutex mutex_;  // held for map finds and a few additions: see util/spin_mutex.h
  // The current window's slot of each account, by name; slots of past
  // windows wait in retired_ until their holds end and their leases go back.
  // Hashed: a money-path request finds five to seven slots, each a string
  // compare where the tree took several.
  std::unordered_map<std::string, std::unique_ptr<Slot>> slots_;
  std::vector<std::unique_ptr<Slot>> retired_;
};

}  // namespace modelgw::budget
