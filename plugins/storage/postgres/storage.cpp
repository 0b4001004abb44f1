// on_storage_open / on_storage_close, and the entry symbol with the table of
// every hook (modelgw/storage_plugin.hpp).
#include "storage.h"

#include <memory>

#include "args.h"

namespace mgw_pg {

mgw_status storage_open(const mgw_host_api* host, mgw_str config_json, mgw_storage** out,
                        const mgw_text_sink* error) noexcept {
  // Config errors read exactly "storage.options.<key>: ...", and database
  // errors start with "postgres storage: " or the server's own words.
  return mgw::storage::open_handle(out, error, [&] {
    return std::make_unique<mgw_storage>(host, parse_config(text_arg(config_json, "storage.options")));
  });
}

void storage_close(mgw_storage* storage) noexcept {
  // Closing the connections sends each server a goodbye; libpq never throws
  // from it, and the host has no sink here anyway.
  delete storage;
}

}  // namespace mgw_pg

// The descriptor reports the project version as the plugin version.
MGW_STORAGE_PLUGIN(mgw_pg, "postgres", MGW_POSTGRES_PLUGIN_VERSION)
