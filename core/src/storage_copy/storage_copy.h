// modelgw storage copy: moves a deployment's history from one database to
// another (SQLite into PostgreSQL when one machine is outgrown) through the
// storage hooks alone, so any two plugins can be copied between.
//
// What moves, ids kept: tenants and their settings, API keys (hashes), named
// prompts with every version and the active one, budgets and credit accounts,
// every ledger window's spend, every usage record (in insertion order per
// tenant), every audit chain, and the stored responses of the Responses API
// when both plugins keep them (ABI 1.9; expired ones too, which the
// destination purges). What does not: live leases (they belong to the
// old processes; run the copy with the source gateways stopped) and
// idempotency keys (short-lived; a retry of a request made before the move is
// made again).
//
// Every step is idempotent, so an interrupted copy is resumed by running it
// again. A destination holding anything that is not from this source is
// refused before a row is written. The copy ends by verifying counts, sums
// and every audit chain on the destination.
#pragma once

#include "plugins/storage.h"

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace modelgw::storage_copy {

// A copy that cannot start or did not verify; the message says what to do.
class CopyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CopyReport {
  std::int64_t tenants = 0;
  std::int64_t api_keys = 0;
  std::int64_t prompt_versions = 0;
  std::int64_t budgets = 0;
  std::int64_t ledger_windows = 0;
  std::int64_t usage_records = 0;  // in the source; the destination verified equal
  std::int64_t audit_events = 0;
  std::int64_t audit_chains = 0;
  std::int64_t responses = 0;  // stored responses (ABI 1.9); 0 when either plugin keeps none
};

struct CopyOptions {
  std::int64_t page = 1000;                          // usage records and audit events per read
  std::function<void(const std::string&)> progress;  // one line per step; may be empty
};

// Copies `from` into `to` and verifies the result. Throws CopyError when
// the destination holds other data or the verification fails, and
// plugins::StorageError when either store fails (running again resumes).
CopyReport copy_storage(plugins::Storage& from, plugins::Storage& to, const CopyOptions& options = {});

}  // namespace modelgw::storage_copy
