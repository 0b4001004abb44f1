#include "backend.h"

#include "plugins/plugin_library.h"

namespace storage_scale {

using namespace modelgw;

Backend::Backend(const std::string& plugin, const std::filesystem::path& plugin_dir,
                 const nlohmann::json& options, const std::filesystem::path& dir)
    : name_(plugin) {
  auto library =
      plugins::PluginLibrary::load(plugin_dir / ("mgw_storage_" + plugin + ".so"), MGW_KIND_STORAGE);
  slot_ = count_store_calls(*library);
  for (std::size_t i = 0; i < instances_.size(); ++i) {
    const std::string name = "bench-" + plugin + "-" + std::string(1, static_cast<char>('a' + i));
    instances_[i] = std::make_unique<Instance>(library, options, name, dir / name);
  }
  auto& storage = instances_[0]->storage();
  if (!storage.supports_spend_control() || !storage.supports_idempotency()) {
    throw std::runtime_error("the " + plugin + " plugin has no budget or idempotency hooks");
  }
  const std::int64_t now = now_unix_ms();
  tenant_id_ = storage.create_tenant("bench", now);
  // Limits so large that the run never reaches them: what is measured is
  // holding, not refusing (bench/spend's tenant).
  constexpr std::int64_t kLimit = 1'000'000'000'000;
  for (const char* scope : {"tenant", "credit"}) {
    const std::string window = std::string(scope) == "credit" ? "none" : "month";
    plugins::BudgetRow row{0, tenant_id_, scope, "", "", window, kLimit, now};
    row.id = storage.create_budget(row);
    held_.budgets.push_back(row);
  }
  held_.rate_limits.tenant_requests = 100'000'000;
  held_.rate_limits.tenant_tokens = 100'000'000'000;
  held_.prepare(tenant_id_, "bench");
}

}  // namespace storage_scale
