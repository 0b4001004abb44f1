// on_storage_open / on_storage_close.
#include "storage.h"

#include <memory>

#include "args.h"
#include "guard.h"
#include "hooks.h"

namespace mgw_pg {

mgw_status storage_open(const mgw_host_api* host, mgw_str config_json, mgw_storage** out,
                        const mgw_text_sink* error) noexcept {
  // No hook name in front of the message: config errors read exactly
  // "storage.options.<key>: ...", and database errors start with
  // "postgres storage: " or the server's own words.
  return guarded(error, "", [&] {
    if (out == nullptr) throw Failure(MGW_INVALID_ARGUMENT, "on_storage_open: out is NULL");
    *out = nullptr;
    auto config = parse_config(text_arg(config_json, "storage.options"));
    *out = std::make_unique<mgw_storage>(host, config).release();
    return MGW_OK;
  });
}

void storage_close(mgw_storage* storage) noexcept {
  // Closing the connections sends each server a goodbye; libpq never throws
  // from it, and the host has no sink here anyway.
  delete storage;
}

}  // namespace mgw_pg
