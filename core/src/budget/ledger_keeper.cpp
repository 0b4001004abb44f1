#include "budget/ledger_keeper.h"

#include <spdlog/spdlog.h>

namespace modelgw::budget {

void LedgerKeeper::start() {
  thread_.start("mgw-leases", interval_, [this] {
    try {
      ledger_.maintain();
    } catch (const std::exception& e) {
      spdlog::warn("budget: lease upkeep failed: {}", e.what());
    }
    return interval_;
  });
}

void LedgerKeeper::stop() {
  if (thread_.stop()) ledger_.return_all();
}

}  // namespace modelgw::budget
