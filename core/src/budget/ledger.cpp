#include "budget/ledger.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>

namespace modelgw::budget {

struct Ledger::Slot {
  std::string name;
  Window window = Window::none;
  std::int64_t window_start = 0;
  std::int64_t window_end = 0;
  std::int64_t limit = 0;
  std::int64_t lease_id = 0;
  std::int64_t granted = 0;  // of the current lease
  std::int64_t settled = 0;  // settled against it here (some charges may still be on their way)
  std::int64_t held = 0;     // held by requests in flight
  std::int64_t renewed_ms = 0;
  std::int64_t used_ms = 0;
  std::int64_t seen_spent = 0;     // the window's standing at the last store call
  std::int64_t seen_reserved = 0;  // (every process's live leases, this one's included)
  std::mutex refill;               // one store call per slot at a time
  int refilling = 0;               // refills under way: the slot must stay
  std::int64_t free() const { return std::max<std::int64_t>(0, granted - settled - held); }
};

Hold& Hold::operator=(Hold&& other) noexcept {
  if (this != &other) {
    if (ledger_ != nullptr && !parts_.empty()) ledger_->release(*this);
    ledger_ = std::exchange(other.ledger_, nullptr);
    parts_ = std::move(other.parts_);
    other.parts_.clear();
  }
  return *this;
}

Hold::~Hold() {
  if (ledger_ != nullptr && !parts_.empty()) ledger_->release(*this);
}

Ledger::Ledger(LeaseStore& store, LedgerOptions options, Clock now_unix_ms)
    : store_(store), options_(std::move(options)), now_(std::move(now_unix_ms)) {}

Ledger::~Ledger() = default;

Ledger::Slot& Ledger::slot_of(const Account& account, std::int64_t now) {
  auto it = slots_.find(account.name);
  if (it != slots_.end() && now >= it->second->window_end) {
    retired_.push_back(std::move(it->second));  // its window is over: a new one starts
    slots_.erase(it);
    it = slots_.end();
  }
  if (it == slots_.end()) {
    auto slot = std::make_unique<Slot>();
    slot->name = account.name;
    slot->window = account.window;
    slot->window_start = window_start(account.window, now);
    slot->window_end = window_end(account.window, now);
    it = slots_.emplace(account.name, std::move(slot)).first;
  }
  it->second->limit = account.limit;  // the latest known (an operator may change it)
  return *it->second;
}

// A lease is used only while the store surely still counts it: renewals run
// every third of its lifetime, so one that missed two is left alone.
bool Ledger::usable(const Slot& slot, std::int64_t now) const {
  return slot.lease_id != 0 && now < slot.renewed_ms + options_.lease_ttl_ms * 2 / 3;
}

bool Ledger::try_hold(std::span<const Draw> draws, Hold& out, Shortfall& shortfall,
                      std::span<std::int64_t> remaining) {
  const std::int64_t now = now_();
  std::lock_guard lock(mutex_);
  decltype(Hold::parts_) parts;
  parts.reserve(draws.size());
  for (std::size_t i = 0; i < draws.size(); ++i) {
    if (draws[i].amount <= 0) {
      parts.push_back(Hold::Part{nullptr, 0});  // nothing to hold; keeps the indexes of `actual`
      continue;
    }
    Slot& slot = slot_of(*draws[i].account, now);
    // Two draws on one account (rare: a feature budget named like another)
    // must both fit.
    std::int64_t want = draws[i].amount;
    for (const auto& p : parts) {
      if (p.slot == &slot) want += p.amount;
    }
    const std::int64_t free = usable(slot, now) ? slot.free() : 0;
    if (free < want) {
      shortfall = Shortfall{i, want};
      return false;
    }
    parts.push_back(Hold::Part{&slot, draws[i].amount});
  }
  for (const auto& p : parts) {
    auto* slot = static_cast<Slot*>(p.slot);
    if (slot == nullptr) continue;
    slot->held += p.amount;
    slot->used_ms = now;
  }
  for (std::size_t i = 0; i < remaining.size() && i < parts.size(); ++i) {
    remaining[i] = parts[i].slot != nullptr ? left_in(*static_cast<Slot*>(parts[i].slot)) : 0;
  }
  out.ledger_ = this;
  out.parts_ = std::move(parts);
  return true;
}

bool Ledger::refill(const Account& account, std::int64_t needed) {
  Slot* slot = nullptr;
  std::int64_t now = now_();
  {
    std::lock_guard lock(mutex_);
    slot = &slot_of(account, now);
    ++slot->refilling;
  }
  struct Unpin {
    Ledger* self;
    Slot* slot;
    ~Unpin() {
      std::lock_guard lock(self->mutex_);
      --slot->refilling;
    }
  } unpin{this, slot};
  std::lock_guard refilling(slot->refill);
  plugins::LeaseRequest request;
  {
    std::lock_guard lock(mutex_);
    now = now_();
    // Another request's refill may have covered this one meanwhile.
    if (usable(*slot, now) && slot->free() >= needed) return true;
    if (!usable(*slot, now) && slot->lease_id != 0) {
      // Lapsed here (renewals failed): start over; the store may have freed it.
      slot->lease_id = 0;
      slot->granted = slot->settled = 0;
    }
    const std::int64_t missing = needed - slot->free();
    request.account = slot->name;
    request.window_start_unix_ms = slot->window_start;
    request.limit = slot->limit;
    request.lease_id = slot->lease_id;
    request.at_least = missing;
    request.want = std::max(missing, slot->limit / std::max<std::int64_t>(1, options_.slice_divisor));
    request.expires_unix_ms = expiry(now);
    request.holder = options_.holder;
  }
  const plugins::LeaseGrant grant = store_.take(request);  // throws StorageError: the caller answers 503
  std::lock_guard lock(mutex_);
  slot->seen_spent = grant.spent;
  slot->seen_reserved = grant.reserved;
  if (grant.lease_id != 0) {
    if (grant.lease_id != slot->lease_id) {
      // A new lease (the old one was gone): its grant starts from nothing
      // settled; holds already made stay counted in `held`.
      slot->lease_id = grant.lease_id;
      slot->settled = 0;
    }
    slot->granted = grant.granted;
    slot->renewed_ms = now;
  }
  return grant.added >= request.at_least && slot->free() >= needed;
}

void Ledger::settle(Hold& hold, std::span<const std::int64_t> actual,
                    std::vector<mgw_ledger_charge>& charges) {
  {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < hold.parts_.size(); ++i) {
      auto* slot = static_cast<Slot*>(hold.parts_[i].slot);
      if (slot == nullptr) continue;
      slot->held -= hold.parts_[i].amount;
      const std::int64_t amount = i < actual.size() ? std::max<std::int64_t>(0, actual[i]) : 0;
      if (amount == 0) continue;
      slot->settled += amount;
      if (slot->lease_id != 0) charges.push_back(mgw_ledger_charge{slot->lease_id, amount});
    }
  }
  hold.parts_.clear();
  hold.ledger_ = nullptr;
}

void Ledger::release(Hold& hold) {
  {
    std::lock_guard lock(mutex_);
    for (const auto& p : hold.parts_) {
      if (p.slot != nullptr) static_cast<Slot*>(p.slot)->held -= p.amount;
    }
  }
  hold.parts_.clear();
  hold.ledger_ = nullptr;
}

std::int64_t Ledger::left_in(const Slot& slot) {
  // Others' reservations are what the store counted beyond this lease.
  const std::int64_t ours = std::max<std::int64_t>(0, slot.granted - slot.settled);
  const std::int64_t others = std::max<std::int64_t>(0, slot.seen_reserved - ours);
  const std::int64_t left = slot.limit - std::max(slot.seen_spent, slot.settled) - others - slot.held;
  return std::clamp<std::int64_t>(left, 0, slot.limit);
}

std::int64_t Ledger::remaining(const Account& account) {
  const std::int64_t now = now_();
  std::lock_guard lock(mutex_);
  return left_in(slot_of(account, now));
}

void Ledger::maintain() {
  const std::int64_t now = now_();
  std::vector<std::pair<std::int64_t, std::int64_t>> give_back;  // lease, keep
  std::vector<std::int64_t> renew;
  {
    std::lock_guard lock(mutex_);
    // Past windows: once nothing is held, their leases go back.
    for (auto it = retired_.begin(); it != retired_.end();) {
      Slot& slot = **it;
      if (slot.held > 0 || slot.refilling > 0) {
        ++it;
        continue;
      }
      if (slot.lease_id != 0) give_back.emplace_back(slot.lease_id, slot.settled);
      it = retired_.erase(it);
    }
    for (auto it = slots_.begin(); it != slots_.end();) {
      Slot& slot = *it->second;
      const bool idle =
          slot.held == 0 && slot.refilling == 0 && now - slot.used_ms >= options_.idle_return_ms;
      if (idle) {
        if (slot.lease_id != 0) give_back.emplace_back(slot.lease_id, slot.settled);
        it = slots_.erase(it);  // nothing points at it: no hold is open
        continue;
      }
      if (slot.lease_id != 0) renew.push_back(slot.lease_id);
      ++it;
    }
  }
  for (const auto& [lease, keep] : give_back) {
    try {
      store_.give_back(lease, keep);
    } catch (const std::exception& e) {
      // It lapses on its own after lease_ttl_ms.
      spdlog::warn("budget: returning lease {} failed: {}", lease, e.what());
    }
  }
  if (renew.empty()) return;
  try {
    store_.renew(renew, expiry(now));
  } catch (const std::exception& e) {
    spdlog::warn("budget: renewing {} leases failed (they lapse unless a later renewal succeeds): {}",
                 renew.size(), e.what());
    return;
  }
  std::lock_guard lock(mutex_);
  for (auto& [name, slot] : slots_) {
    if (std::find(renew.begin(), renew.end(), slot->lease_id) != renew.end()) slot->renewed_ms = now;
  }
}

void Ledger::return_all() {
  std::vector<std::pair<std::int64_t, std::int64_t>> give_back;
  {
    std::lock_guard lock(mutex_);
    for (auto& [name, slot] : slots_) {
      if (slot->lease_id != 0) give_back.emplace_back(slot->lease_id, slot->settled + slot->held);
      slot->lease_id = 0;
    }
    for (auto& slot : retired_) {
      if (slot->lease_id != 0) give_back.emplace_back(slot->lease_id, slot->settled + slot->held);
      slot->lease_id = 0;
    }
  }
  for (const auto& [lease, keep] : give_back) {
    try {
      store_.give_back(lease, keep);
    } catch (const std::exception& e) {
      spdlog::warn("budget: returning lease {} at stop failed (it lapses after {} ms): {}", lease,
                   options_.lease_ttl_ms, e.what());
    }
  }
}

}  // namespace modelgw::budget
