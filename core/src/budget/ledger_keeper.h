// The thread that keeps the process's leases honest: renews those in use,
// returns idle ones and those of past windows (Ledger::maintain), and at
// stop returns them all, so a clean stop frees its slices at once.
#pragma once

#include "budget/ledger.h"
#include "util/periodic_thread.h"

#include <chrono>

namespace modelgw::budget {

class LedgerKeeper {
 public:
  LedgerKeeper(Ledger& ledger, std::chrono::milliseconds interval) : ledger_(ledger), interval_(interval) {}
  ~LedgerKeeper() { stop(); }
  LedgerKeeper(const LedgerKeeper&) = delete;
  LedgerKeeper& operator=(const LedgerKeeper&) = delete;

  void start();
  // Stops the thread and returns every lease. Idempotent.
  void stop();

 private:
  Ledger& ledger_;
  std::chrono::milliseconds interval_;
  util::PeriodicThread thread_;
};

}  // namespace modelgw::budget
