// One storage backend under test: its plugin loaded once (with its store
// calls counted, store_calls.h), two instances on one database, and the
// tenant every request is made for: a month budget, a credit account and
// request and token rate limits, as bench/spend has it.
#pragma once

#include "budget/tenant_spend.h"
#include "instance.h"
#include "store_calls.h"

#include <nlohmann/json.hpp>

#include <array>
#include <filesystem>
#include <memory>
#include <string>

namespace storage_scale {

class Backend {
 public:
  // Loads mgw_storage_<plugin>.so from `plugin_dir` and opens two instances
  // with `options`; their journals go under `dir`.
  Backend(const std::string& plugin, const std::filesystem::path& plugin_dir, const nlohmann::json& options,
          const std::filesystem::path& dir);
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  const std::string& name() const { return name_; }
  Instance& instance(int i) { return *instances_[static_cast<std::size_t>(i)]; }
  std::int64_t tenant_id() const { return tenant_id_; }
  const modelgw::budget::TenantSpend& held() const { return held_; }
  // A tenant with nothing to hold: the spend step's fixed cost.
  const modelgw::budget::TenantSpend& nothing() const { return nothing_; }
  CallCounts calls() const { return store_calls(slot_); }

 private:
  std::string name_;
  int slot_ = 0;
  std::array<std::unique_ptr<Instance>, 2> instances_;
  std::int64_t tenant_id_ = 0;
  modelgw::budget::TenantSpend held_;
  modelgw::budget::TenantSpend nothing_;
};

}  // namespace storage_scale
