// One loaded plugin shared object: Boost.DLL loading, the version handshake and
// the checks that turn a wrong file into one clear start-up error.
#pragma once

#include "plugins/host_api.h"

#include <modelgw/plugin.h>

#ifndef BOOST_DLL_USE_STD_FS
#define BOOST_DLL_USE_STD_FS
#endif
#include <boost/dll/shared_library.hpp>

#include <filesystem>
#include <memory>
#include <string>

namespace modelgw::plugins {

const char* kind_name(mgw_plugin_kind kind);

// "<dir>/mgw_<kind>_<name>.so", or `name` itself when it is a path (has a '/').
std::filesystem::path resolve_plugin_path(const std::string& dir, mgw_plugin_kind kind,
                                          const std::string& name);

class PluginLibrary {
 public:
  // Loads `file`, calls its entry symbol and checks the descriptor
  // (plugin_descriptor.h): same ABI major, the expected kind, a hook table at
  // least the ABI 1.0 size with every 1.0 hook set. Throws PluginError naming the file and, for a version
  // mismatch, both versions.
  static std::shared_ptr<PluginLibrary> load(const std::filesystem::path& file,
                                             mgw_plugin_kind expected_kind);

  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;
  ~PluginLibrary();

  const mgw_plugin_descriptor& descriptor() const { return *descriptor_; }
  const mgw_host_api* host() const { return host_->get(); }
  const std::filesystem::path& file() const { return file_; }
  std::string name() const { return descriptor_->name; }

  // The plugin's hook table in this host's layout (plugin_descriptor.h): a
  // hook the plugin's minor does not have is NULL.
  template <typename Hooks>
  const Hooks& hooks() const;

 private:
  PluginLibrary() = default;

  std::filesystem::path file_;
  boost::dll::shared_library library_;
  std::unique_ptr<HostApi> host_;
  const mgw_plugin_descriptor* descriptor_ = nullptr;
  mgw_provider_hooks provider_hooks_{};
  mgw_storage_hooks storage_hooks_{};
  mgw_pii_hooks pii_hooks_{};
};

template <>
inline const mgw_provider_hooks& PluginLibrary::hooks<mgw_provider_hooks>() const {
  return provider_hooks_;
}
template <>
inline const mgw_storage_hooks& PluginLibrary::hooks<mgw_storage_hooks>() const {
  return storage_hooks_;
}
template <>
inline const mgw_pii_hooks& PluginLibrary::hooks<mgw_pii_hooks>() const {
  return pii_hooks_;
}

}  // namespace modelgw::plugins
