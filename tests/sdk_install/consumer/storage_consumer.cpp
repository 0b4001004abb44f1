// A storage plugin's start from the installed SDK alone: the storage helper
// compiles as C++17 with every warning an error, its hooks declared, one of
// them written, and the table, descriptor and entry symbol expanded. Compiled
// only (an object library): the other hooks are left for a real plugin.
#include <modelgw/storage_plugin.hpp>

#include <memory>

struct mgw_storage {
  int64_t tenants = 0;
};

namespace consumer {

MGW_STORAGE_DECLARE_HOOKS()

mgw_status storage_open(const mgw_host_api* host, mgw_str config_json, mgw_storage** out,
                        const mgw_text_sink* error) noexcept {
  return mgw::storage::open_handle(out, error, [&] {
    if (host == nullptr) throw mgw::storage::Failure(MGW_INVALID_ARGUMENT, "host: NULL");
    mgw::storage::text_arg(config_json, "storage.options");
    return std::make_unique<mgw_storage>();
  });
}

mgw_status response_put(mgw_storage* storage, const mgw_response_record* record,
                        const mgw_text_sink* error) noexcept {
  return mgw::storage::guarded(error, "response put", [&] {
    const mgw::storage::ResponseToStore r = mgw::storage::response_put_arg(record);
    if (storage == nullptr || r.id.empty())
      throw mgw::storage::Failure(MGW_INVALID_ARGUMENT, "storage: NULL");
    return MGW_OK;
  });
}

}  // namespace consumer

MGW_STORAGE_PLUGIN(consumer, "consumer", "0.0.1")
