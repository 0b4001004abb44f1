#include "plugins/plugin_library.h"

#include "plugins/plugin_descriptor.h"
#include "plugins/plugin_error.h"

#include <dlfcn.h>
#include <boost/dll/shared_library_load_mode.hpp>

namespace modelgw::plugins {

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
  // Pinned until the process exits (RTLD_NODELETE; the second open only marks
  // the loaded object): a plugin's own libraries (libpq, libpqxx) keep
  // thread-local state and exit handlers that must not outlive their code,
  // and LeakSanitizer's exit-time scan crashed on an unloaded one's TLS.
  (void)::dlopen(file.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  if (!lib->library_.has(MGW_ENTRY_SYMBOL)) {
    throw PluginError(where + ": does not export " MGW_ENTRY_SYMBOL "; it is not a modelgw plugin");
  }
  auto& entry = lib->library_.get<const mgw_plugin_descriptor*(const mgw_host_api*)>(MGW_ENTRY_SYMBOL);
  lib->host_ = std::make_unique<HostApi>(file.stem().string());
  const mgw_plugin_descriptor* d = entry(lib->host_->get());
  check_descriptor(where, d, expected_kind);
  switch (expected_kind) {
    case MGW_KIND_PROVIDER:
      lib->provider_hooks_ = copy_hooks<mgw_provider_hooks>(d->hooks);
      break;
    case MGW_KIND_STORAGE:
      lib->storage_hooks_ = copy_hooks<mgw_storage_hooks>(d->hooks);
      break;
    default:
      lib->pii_hooks_ = copy_hooks<mgw_pii_hooks>(d->hooks);
      break;
  }
  lib->descriptor_ = d;
  // The plugin may keep the host table from the entry call, so the same one
  // stays; only its log attribution moves to the declared name.
  lib->host_->set_plugin_name(d->name);
  return lib;
}

PluginLibrary::~PluginLibrary() = default;

}  // namespace modelgw::plugins
