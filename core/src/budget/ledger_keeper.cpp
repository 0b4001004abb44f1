#include "budget/ledger_keeper.h"

#include <spdlog/spdlog.h>

namespace modelgw::budget {

void LedgerKeeper::start() {
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      wake_.wait_for(lock, interval_, [this] { return stopping_; });
      if (stopping_) break;
      lock.unlock();
      try {
        ledger_.maintain();
      } catch (const std::exception& e) {
        spdlog::warn("budget: lease upkeep failed: {}", e.what());
      }
      lock.lock();
    }
  });
}

void LedgerKeeper::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  ledger_.return_all();
}

}  // namespace modelgw::budget
