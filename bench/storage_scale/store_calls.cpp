#include "store_calls.h"

#include <atomic>
#include <stdexcept>
#include <type_traits>

namespace storage_scale {
namespace {

constexpr int kSlots = 2;
std::array<std::array<std::atomic<std::int64_t>, kHooks>, kSlots> g_counts{};
std::atomic<int> g_next_slot{0};

// One trampoline per (library slot, hook): a plain function, since the hook
// table holds C function pointers with no user data of their own.
template <int Slot, auto Member, typename Fn>
struct Trampoline;

template <int Slot, auto Member, typename R, typename... Args>
struct Trampoline<Slot, Member, R (*)(Args...)> {
  static inline R (*next)(Args...) = nullptr;
  static inline std::atomic<std::int64_t>* counter = nullptr;
  static R call(Args... args) {
    counter->fetch_add(1, std::memory_order_relaxed);
    return next(args...);
  }
};

template <int Slot, auto Member>
void wrap(mgw_storage_hooks& hooks, Hook hook) {
  using Fn = std::remove_reference_t<decltype(hooks.*Member)>;
  using T = Trampoline<Slot, Member, Fn>;
  if (hooks.*Member == nullptr) return;  // an older plugin: the Storage call throws before reaching it
  T::next = hooks.*Member;
  T::counter = &g_counts[Slot][static_cast<std::size_t>(hook)];
  hooks.*Member = &T::call;
}

template <int Slot>
void wrap_all(mgw_storage_hooks& h) {
  wrap<Slot, &mgw_storage_hooks::on_lease_take>(h, Hook::lease_take);
  wrap<Slot, &mgw_storage_hooks::on_lease_return>(h, Hook::lease_return);
  wrap<Slot, &mgw_storage_hooks::on_lease_renew>(h, Hook::lease_renew);
  wrap<Slot, &mgw_storage_hooks::on_ledger_read>(h, Hook::ledger_read);
  wrap<Slot, &mgw_storage_hooks::on_idempotency_claim>(h, Hook::claim);
  wrap<Slot, &mgw_storage_hooks::on_idempotency_complete>(h, Hook::complete);
  wrap<Slot, &mgw_storage_hooks::on_idempotency_release>(h, Hook::release);
  wrap<Slot, &mgw_storage_hooks::on_usage_insert>(h, Hook::usage_insert);
}

}  // namespace

CallCounts CallCounts::operator-(const CallCounts& before) const {
  CallCounts d;
  for (std::size_t i = 0; i < kHooks; ++i) d.calls[i] = calls[i] - before.calls[i];
  return d;
}

int count_store_calls(modelgw::plugins::PluginLibrary& library) {
  const int slot = g_next_slot.fetch_add(1);
  if (slot >= kSlots) throw std::logic_error("count_store_calls: at most two libraries");
  // The table is the library object's own (non-const) member, handed out as
  // const so that nothing changes it by accident; this is on purpose.
  auto& hooks = const_cast<mgw_storage_hooks&>(library.hooks<mgw_storage_hooks>());
  if (slot == 0) wrap_all<0>(hooks);
  if (slot == 1) wrap_all<1>(hooks);
  return slot;
}

CallCounts store_calls(int slot) {
  CallCounts c;
  for (std::size_t i = 0; i < kHooks; ++i) {
    c.calls[i] = g_counts[static_cast<std::size_t>(slot)][i].load(std::memory_order_relaxed);
  }
  return c;
}

}  // namespace storage_scale
