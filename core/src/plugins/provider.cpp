#include "plugins/provider.h"

#include "plugins/plugin_error.h"

#include <modelgw/sdk.hpp>

namespace modelgw::plugins {

Provider::Provider(std::shared_ptr<PluginLibrary> library, const config::ProviderConfig& config)
    : library_(std::move(library)), config_(config), hooks_(library_->hooks<mgw_provider_hooks>()) {
  std::string reason;
  mgw_text_sink sink{&reason, [](void* r, mgw_str t) { static_cast<std::string*>(r)->append(mgw::view(t)); }};
  const std::string json = config_.plugin_config.dump();
  mgw_status st = hooks_.on_provider_new(library_->host(), mgw::str(json), &handle_, &sink);
  if (st != MGW_OK || handle_ == nullptr) {
    throw PluginError("plugin " + library_->file().string() + ": provider '" + config_.name +
                      "' failed to start: " + (reason.empty() ? "no reason given" : reason));
  }
}

Provider::~Provider() {
  if (handle_ != nullptr) hooks_.on_provider_destroy(handle_);
}

}  // namespace modelgw::plugins
