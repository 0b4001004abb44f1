// One configured provider: its plugin instance (a translator) and the facts
// the host needs to send what the plugin builds.
#pragma once

#include "config/config.h"
#include "plugins/plugin_library.h"

#include <memory>
#include <string>

namespace modelgw::plugins {

class Provider {
 public:
  // Creates the plugin instance from the provider's config block; throws
  // PluginError with the plugin's reason.
  Provider(std::shared_ptr<PluginLibrary> library, const config::ProviderConfig& config);
  ~Provider();
  Provider(const Provider&) = delete;
  Provider& operator=(const Provider&) = delete;

  const std::string& name() const { return config_.name; }
  const config::ProviderConfig& config() const { return config_; }
  const mgw_provider_hooks& hooks() const { return hooks_; }
  mgw_provider* handle() const { return handle_; }

 private:
  std::shared_ptr<PluginLibrary> library_;
  config::ProviderConfig config_;
  const mgw_provider_hooks& hooks_;
  mgw_provider* handle_ = nullptr;
};

}  // namespace modelgw::plugins
