// on_storage_open / on_storage_close, and the entry symbol with the table of
// every hook (modelgw/storage_plugin.hpp).
#include "storage.h"

#include <memory>

#include "args.h"

namespace mgw_sqlite {

mgw_status storage_open(const mgw_host_api* host, mgw_str config_json, mgw_storage** out,
                        const mgw_text_sink* error) noexcept {
  // Config errors read exactly "storage.options.<key>: ...", and database
  // errors start with the path.
  return mgw::storage::open_handle(out, error, [&] {
    return std::make_unique<mgw_storage>(host, parse_config(bytes_arg(config_json, "storage.options")));
  });
}

void storage_close(mgw_storage* storage) noexcept {
  // Closing finalizes statements and connections; nothing in it throws, and
  // the host has no sink here, so there is nothing to report anyway.
  delete storage;
}

}  // namespace mgw_sqlite

// The descriptor reports the project version as the plugin version.
MGW_STORAGE_PLUGIN(mgw_sqlite, "sqlite", MGW_SQLITE_PLUGIN_VERSION)
