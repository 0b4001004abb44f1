// Counts the calls a loaded storage plugin receives, hook by hook, so a run
// can say how many store round trips each request step made. plugins::Storage
// is a concrete class (no seam to wrap), so the count is taken one level
// lower: the library's hook table (the host's own copy, which every Storage
// opened from that library calls through) gets trampolines that count and
// call the plugin's hook. Counts cover every Storage of the library, so a run
// takes them before and after a phase and reports the difference.
#pragma once

#include "plugins/plugin_library.h"

#include <array>
#include <cstdint>

namespace storage_scale {

// The hooks the measured steps reach.
enum class Hook {
  lease_take,
  lease_return,
  lease_renew,
  ledger_read,
  claim,
  complete,
  release,
  usage_insert
};
inline constexpr std::size_t kHooks = 8;

struct CallCounts {
  std::array<std::int64_t, kHooks> calls{};

  std::int64_t operator[](Hook h) const { return calls[static_cast<std::size_t>(h)]; }
  std::int64_t leases() const {
    return (*this)[Hook::lease_take] + (*this)[Hook::lease_return] + (*this)[Hook::lease_renew] +
           (*this)[Hook::ledger_read];
  }
  std::int64_t idempotency() const {
    return (*this)[Hook::claim] + (*this)[Hook::complete] + (*this)[Hook::release];
  }
  std::int64_t usage_inserts() const { return (*this)[Hook::usage_insert]; }
  std::int64_t total() const { return leases() + idempotency() + usage_inserts(); }
  CallCounts operator-(const CallCounts& before) const;
};

// Installs the counting trampolines in `library`'s hook table, before any
// Storage is opened from it. At most two libraries per process (one per
// backend); each gets its own counters. Returns the library's counter slot.
int count_store_calls(modelgw::plugins::PluginLibrary& library);

// The counts of a slot so far.
CallCounts store_calls(int slot);

}  // namespace storage_scale
