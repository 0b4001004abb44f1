// One configured provider: its plugin instance (a translator) and the facts
// the host needs to send what the plugin builds.
#pragma once

#include "config/config.h"
#include "plugins/plugin_library.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace modelgw::plugins {

// One request parameter the provider declared (plugin.h, mgw_param_spec).
struct ParamSpec {
  std::string name;
  int handling = MGW_PARAM_MAPPED;  // MGW_PARAM_*
  std::string target;
  double min = 1;  // min > max: any number
  double max = 0;
};

class Provider {
 public:
  // Creates the plugin instance from the provider's config block; throws
  // PluginError with the plugin's reason.
  Provider(std::shared_ptr<PluginLibrary> library, const config::ProviderConfig& config);
  ~Provider();
  Provider(const Provider&) = delete;
  Provider& operator=(const Provider&) = delete;

  const std::string& name() const { return config_.name; }
  // The plugin's own name (its descriptor's), for errors that blame it.
  std::string plugin_name() const { return library_->name(); }
  const config::ProviderConfig& config() const { return config_; }
  const mgw_provider_hooks& hooks() const { return hooks_; }
  mgw_provider* handle() const { return handle_; }
  // What the plugin declared through on_provider_parameters (ABI 1.4);
  // nullopt for a plugin without the hook.
  const std::optional<std::vector<ParamSpec>>& parameters() const { return parameters_; }
  // True when the provider serves `operation` natively (on_provider_operations,
  // ABI 1.10): its calls then go to it in their own API, not translated to
  // chat. Chat is served by every provider; embeddings and count_tokens (ABI
  // 1.11) only by one that declares them.
  bool serves_natively(std::string_view operation) const;

 private:
  std::shared_ptr<PluginLibrary> library_;
  config::ProviderConfig config_;
  const mgw_provider_hooks& hooks_;
  mgw_provider* handle_ = nullptr;
  std::optional<std::vector<ParamSpec>> parameters_;
  std::vector<std::string> native_;  // the operations declared natively (a handful)

  void read_parameters();
  void read_operations();
};

}  // namespace modelgw::plugins
