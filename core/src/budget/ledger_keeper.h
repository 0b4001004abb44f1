// The thread that keeps the process's leases honest: renews those in use,
// returns idle ones and those of past windows (Ledger::maintain), and at
// stop returns them all, so a clean stop frees its slices at once.
#pragma once

#include "budget/ledger.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

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
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace modelgw::budget
