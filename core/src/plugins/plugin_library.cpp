#include "plugins/plugin_library.h"

#include "plugins/plugin_error.h"

#include <boost/dll/shared_library_load_mode.hpp>

#include <cstddef>
#include <string_view>

namespace modelgw::plugins {
namespace {

std::string version_string(unsigned major, unsigned minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

// Every hook a v1 table must provide, per kind. A null hook would crash later,
// on a request; refusing it here keeps the failure at start-up.
template <typename Hooks>
bool size_ok(const void* hooks, std::size_t least = sizeof(Hooks)) {
  return static_cast<const Hooks*>(hooks)->struct_size >= least;
}

// A storage table from before ABI 1.2 ends at on_prompt_activate: it still
// loads (the host then enforces no budgets or rate limits; see Storage).
constexpr std::size_t kStorageHooksV1 =
    offsetof(mgw_storage_hooks, on_prompt_activate) + sizeof(mgw_storage_hooks::on_prompt_activate);

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

void check_hooks(const std::string& where, mgw_plugin_kind kind, const void* hooks) {
  if (hooks == nullptr) throw PluginError(where + ": descriptor has no hook table");
  bool size = false;
  bool complete = false;
  switch (kind) {
    case MGW_KIND_PROVIDER:
      size = size_ok<mgw_provider_hooks>(hooks);
      complete = size && provider_hooks_complete(*static_cast<const mgw_provider_hooks*>(hooks));
      break;
    case MGW_KIND_STORAGE:
      size = size_ok<mgw_storage_hooks>(hooks, kStorageHooksV1);
      complete = size && storage_hooks_complete(*static_cast<const mgw_storage_hooks*>(hooks));
      break;
    case MGW_KIND_PII:
      size = size_ok<mgw_pii_hooks>(hooks);
      complete = size && pii_hooks_complete(*static_cast<const mgw_pii_hooks*>(hooks));
      break;
    default:
      break;
  }
  if (!size) throw PluginError(where + ": hook table is smaller than ABI 1.0 requires");
  if (!complete) throw PluginError(where + ": hook table leaves a required hook unset");
}

}  // namespace

const char* kind_name(mgw_plugin_kind kind) {
  switch (kind) {
    case MGW_KIND_PROVIDER:
      return "provider";
    case MGW_KIND_PII:
      return "pii";
    case MGW_KIND_STORAGE:
      return "storage";
    default:
      return "unknown";
  }
}

std::filesystem::path resolve_plugin_path(const std::string& dir, mgw_plugin_kind kind,
                                          const std::string& name) {
  if (name.find('/') != std::string::npos) return std::filesystem::path(name);
  return std::filesystem::path(dir) / (std::string("mgw_") + kind_name(kind) + "_" + name + ".so");
}

std::shared_ptr<PluginLibrary> PluginLibrary::load(const std::filesystem::path& file,
                                                   mgw_plugin_kind expected_kind) {
  const std::string where = "plugin " + file.string();
  std::error_code exists_ec;
  if (!std::filesystem::exists(file, exists_ec)) {
    throw PluginError(where + ": file not found (check plugins.dir and the plugin name)");
  }
  std::shared_ptr<PluginLibrary> lib(new PluginLibrary());
  lib->file_ = file;
  boost::dll::fs::error_code ec;
  lib->library_.load(file, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, ec);
  if (ec) throw PluginError(where + ": cannot be loaded: " + ec.message());
  if (!lib->library_.has(MGW_ENTRY_SYMBOL)) {
    throw PluginError(where + ": does not export " MGW_ENTRY_SYMBOL "; it is not a modelgw plugin");
  }
  auto& entry = lib->library_.get<const mgw_plugin_descriptor*(const mgw_host_api*)>(MGW_ENTRY_SYMBOL);
  lib->host_ = std::make_unique<HostApi>(file.stem().string());
  const std::string host_version = version_string(MGW_ABI_MAJOR, MGW_ABI_MINOR);
  const mgw_plugin_descriptor* d = entry(lib->host_->get());
  if (d == nullptr) {
    throw PluginError(where + ": refused to load into this host (host ABI " + host_version + ")");
  }
  if (d->struct_size < sizeof(mgw_plugin_descriptor)) {
    throw PluginError(where + ": descriptor is smaller than ABI 1.0 requires");
  }
  if (d->abi_major != MGW_ABI_MAJOR) {
    throw PluginError(where + ": built for plugin ABI " + version_string(d->abi_major, d->abi_minor) +
                      ", but this host speaks ABI " + host_version + "; rebuild it against this SDK");
  }
  if (d->kind != expected_kind) {
    throw PluginError(where + ": is a " + kind_name(d->kind) + " plugin, but a " + kind_name(expected_kind) +
                      " plugin was configured here");
  }
  if (d->name == nullptr || d->version == nullptr)
    throw PluginError(where + ": descriptor lacks name or version");
  check_hooks(where, expected_kind, d->hooks);
  lib->descriptor_ = d;
  // The plugin may keep the host table from the entry call, so the same one
  // stays; only its log attribution moves to the declared name.
  lib->host_->set_plugin_name(d->name);
  return lib;
}

PluginLibrary::~PluginLibrary() = default;

}  // namespace modelgw::plugins
