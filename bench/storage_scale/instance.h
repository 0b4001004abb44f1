// One gateway instance's storage side, built the way app/gateway.cpp builds
// it with the default configuration: its own Storage handle (for postgres:
// its own connection pool), ledger with its lease keeper, blocking pool,
// spend control and idempotency keeper. Two of these on one database stand
// for two gateway processes sharing it.
#pragma once

#include "budget/admission.h"
#include "budget/ledger.h"
#include "budget/ledger_keeper.h"
#include "idempotency/key_keeper.h"
#include "net/blocking_pool.h"
#include "plugins/storage.h"
#include "usage/usage_writer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace storage_scale {

std::int64_t now_unix_ms();

class Instance {
 public:
  // `name` tells its leases apart in the store; `dir` holds its usage journals.
  Instance(std::shared_ptr<modelgw::plugins::PluginLibrary> library, const nlohmann::json& options,
           const std::string& name, std::filesystem::path dir);
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  const std::string& name() const { return name_; }
  modelgw::plugins::Storage& storage() { return storage_; }
  modelgw::budget::SpendControl& spend() { return spend_; }
  modelgw::idempotency::KeyKeeper& keys() { return keys_; }

  // A started usage writer with the gateway's batches (usage.flush_interval_ms
  // 20, usage.batch_size 256); its journal is a new file named after `tag`.
  std::unique_ptr<modelgw::usage::UsageWriter> usage_writer(const std::string& tag,
                                                            std::size_t queue_limit = 100000);

 private:
  std::string name_;
  std::filesystem::path dir_;
  // Declared in the order they are built; destroyed in reverse, so the
  // keeper returns every lease before the ledger and the store go.
  modelgw::plugins::Storage storage_;
  modelgw::budget::StorageLeases leases_;
  modelgw::budget::Ledger ledger_;
  modelgw::budget::LedgerKeeper keeper_;
  modelgw::net::BlockingPool blocking_;
  modelgw::budget::SpendControl spend_;
  modelgw::idempotency::KeyKeeper keys_;
};

}  // namespace storage_scale
