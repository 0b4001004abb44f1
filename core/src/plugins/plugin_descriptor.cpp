#include "plugins/plugin_descriptor.h"

#include "plugins/plugin_error.h"
#include "plugins/plugin_library.h"

#include <cstring>

namespace modelgw::plugins {
namespace {

std::string version_string(unsigned major, unsigned minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

// A plugin's name shows in logs and errors: printable ASCII, short.
bool printable_name(const char* s, std::size_t max) {
  const std::size_t n = ::strnlen(s, max + 1);
  if (n == 0 || n > max) return false;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

// Every hook ABI 1.0 defines for `kind`; a null one would crash later, on a
// request, so it is refused here, at start-up.
bool provider_hooks_complete(const mgw_provider_hooks& h) {
  return h.on_provider_new && h.on_provider_destroy && h.on_build_request && h.on_parse_response &&
         h.on_stream_new && h.on_stream_data && h.on_stream_end && h.on_stream_destroy;
}

bool storage_hooks_complete(const mgw_storage_hooks& h) {
  return h.on_storage_open && h.on_storage_close && h.on_tenant_create && h.on_tenant_find &&
         h.on_tenant_list && h.on_api_key_create && h.on_api_key_find_by_hash && h.on_api_key_list &&
         h.on_api_key_revoke && h.on_usage_insert && h.on_usage_query && h.on_tenant_settings_set &&
         h.on_prompt_version_create && h.on_prompt_version_find && h.on_prompt_version_list &&
         h.on_prompt_activate;
}

bool pii_hooks_complete(const mgw_pii_hooks& h) {
  return h.on_pii_new && h.on_pii_destroy && h.on_pii_scope_new && h.on_pii_scope_destroy && h.on_pii_apply;
}

template <typename Hooks>
void check_table(const std::string& where, const void* hooks, std::size_t size_1_0,
                 bool (*complete)(const Hooks&)) {
  const std::uint32_t size = static_cast<const Hooks*>(hooks)->struct_size;
  if (size < size_1_0) {
    throw PluginError(where + ": hook table is " + std::to_string(size) + " bytes, smaller than the " +
                      std::to_string(size_1_0) + " ABI 1.0 defines");
  }
  if (!complete(copy_hooks<Hooks>(hooks)))
    throw PluginError(where + ": hook table leaves a required hook unset");
}

}  // namespace

void check_descriptor(const std::string& where, const mgw_plugin_descriptor* d,
                      mgw_plugin_kind expected_kind) {
  const std::string host_version = version_string(MGW_ABI_MAJOR, MGW_ABI_MINOR);
  if (d == nullptr)
    throw PluginError(where + ": refused to load into this host (host ABI " + host_version + ")");
  // The first eight bytes never move: the major decides whether anything else
  // in the descriptor means what this host thinks.
  if (d->abi_major != MGW_ABI_MAJOR) {
    throw PluginError(where + ": built for plugin ABI " + version_string(d->abi_major, d->abi_minor) +
                      ", but this host speaks ABI " + host_version + "; rebuild it against this SDK");
  }
  if (d->struct_size < MGW_PLUGIN_DESCRIPTOR_SIZE_1_0) {
    throw PluginError(where + ": descriptor is " + std::to_string(d->struct_size) +
                      " bytes, smaller than the " + std::to_string(MGW_PLUGIN_DESCRIPTOR_SIZE_1_0) +
                      " ABI 1.0 defines");
  }
  if (d->kind != expected_kind) {
    throw PluginError(where + ": is a " + kind_name(d->kind) + " plugin, but a " + kind_name(expected_kind) +
                      " plugin was configured here");
  }
  if (d->name == nullptr || d->version == nullptr)
    throw PluginError(where + ": descriptor lacks name or version");
  if (!printable_name(d->name, 64) || !printable_name(d->version, 64)) {
    throw PluginError(where +
                      ": descriptor's name or version is empty, over 64 bytes or not printable ASCII");
  }
  if (d->hooks == nullptr) throw PluginError(where + ": descriptor has no hook table");
  switch (expected_kind) {
    case MGW_KIND_PROVIDER:
      check_table<mgw_provider_hooks>(where, d->hooks, MGW_PROVIDER_HOOKS_SIZE_1_0, &provider_hooks_complete);
      break;
    case MGW_KIND_STORAGE:
      check_table<mgw_storage_hooks>(where, d->hooks, MGW_STORAGE_HOOKS_SIZE_1_0, &storage_hooks_complete);
      break;
    case MGW_KIND_PII:
      check_table<mgw_pii_hooks>(where, d->hooks, MGW_PII_HOOKS_SIZE_1_0, &pii_hooks_complete);
      break;
    default:
      throw PluginError(where + ": unknown plugin kind " + std::to_string(expected_kind));
  }
}

}  // namespace modelgw::plugins
