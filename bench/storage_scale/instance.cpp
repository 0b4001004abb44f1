#include "instance.h"

#include <algorithm>
#include <chrono>

namespace storage_scale {

using namespace modelgw;

std::int64_t now_unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

namespace {
// The configuration's defaults, as the gateway uses them.
const config::BudgetConfig kBudget{};
const int kBlockingThreads = config::ServerConfig{}.blocking_threads;
}  // namespace

Instance::Instance(std::shared_ptr<plugins::PluginLibrary> library, const nlohmann::json& options,
                   const std::string& name, std::filesystem::path dir)
    : name_(name),
      dir_(std::move(dir)),
      storage_(std::move(library), options),
      leases_(storage_),
      ledger_(leases_,
              budget::LedgerOptions{kBudget.lease_ttl_ms, kBudget.lease_idle_ms, kBudget.lease_slice_divisor,
                                    name},
              &now_unix_ms),
      // The gateway's maintenance interval (app/gateway.cpp).
      keeper_(ledger_, std::chrono::milliseconds(
                           std::min(kBudget.lease_ttl_ms / 3, std::max(kBudget.lease_idle_ms / 2, 100)))),
      blocking_(kBlockingThreads),
      spend_(ledger_, blocking_, budget::AdmissionOptions{kBudget.min_output_tokens}, &now_unix_ms),
      keys_(storage_, blocking_, config::IdempotencyConfig{}) {
  std::filesystem::create_directories(dir_);
  keeper_.start();
}

std::unique_ptr<usage::UsageWriter> Instance::usage_writer(const std::string& tag, std::size_t queue_limit) {
  const config::UsageConfig defaults;
  auto writer = std::make_unique<usage::UsageWriter>(
      storage_, std::make_unique<usage::UsageJournal>((dir_ / (tag + ".journal")).string()),
      usage::WriterOptions{defaults.flush_interval_ms, defaults.batch_size, queue_limit});
  writer->start();
  return writer;
}

}  // namespace storage_scale
