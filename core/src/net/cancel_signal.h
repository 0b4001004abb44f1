// A one-shot signal for one event loop: the client hung up, a deadline
// passed. Waiters register a slot (typically: cancel this socket, this
// timer); emit() runs every slot once. Not thread-safe by design: a signal and
// everything it cancels live on the same loop.
#pragma once

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

namespace modelgw::net {

class CancelSignal {
 public:
  using Slot = std::function<void()>;

  // Registers `slot`; if the signal already fired, runs it at once. Returns
  // an id for disconnect().
  std::size_t connect(Slot slot) {
    if (fired_) {
      slot();
      return 0;
    }
    slots_.emplace_back(++last_id_, std::move(slot));
    return last_id_;
  }
  void disconnect(std::size_t id) {
    for (auto it = slots_.begin(); it != slots_.end(); ++it) {
      if (it->first == id) {
        slots_.erase(it);
        return;
      }
    }
  }
  void emit() {
    if (fired_) return;
    fired_ = true;
    auto slots = std::move(slots_);
    slots_.clear();
    for (auto& [id, slot] : slots) slot();
  }
  bool fired() const { return fired_; }

 private:
  bool fired_ = false;
  std::size_t last_id_ = 0;
  std::vector<std::pair<std::size_t, Slot>> slots_;
};

// Connects a slot for the lifetime of a scope.
class ScopedSlot {
 public:
  ScopedSlot(CancelSignal* signal, CancelSignal::Slot slot)
      : signal_(signal), id_(signal ? signal->connect(std::move(slot)) : 0) {}
  ~ScopedSlot() {
    if (signal_ && id_ != 0) signal_->disconnect(id_);
  }
  ScopedSlot(const ScopedSlot&) = delete;
  ScopedSlot& operator=(const ScopedSlot&) = delete;

 private:
  CancelSignal* signal_;
  std::size_t id_;
};

}  // namespace modelgw::net
