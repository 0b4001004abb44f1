#include "plugins/pii_mode.h"

#include "plugins/plugin_error.h"

#include <modelgw/sdk.hpp>

namespace modelgw::plugins {

PiiMode::PiiMode(std::shared_ptr<PluginLibrary> library, std::string name, const nlohmann::json& options)
    : library_(std::move(library)), name_(std::move(name)), hooks_(library_->hooks<mgw_pii_hooks>()) {
  std::string reason;
  mgw_text_sink sink{&reason, [](void* r, mgw_str t) { static_cast<std::string*>(r)->append(mgw::view(t)); }};
  const std::string json = options.is_object() ? options.dump() : "{}";
  const mgw_status st = hooks_.on_pii_new(library_->host(), mgw::str(json), &handle_, &sink);
  if (st != MGW_OK || handle_ == nullptr) {
    throw PluginError("plugin " + library_->file().string() + ": PII mode '" + name_ +
                      "' failed to start: " + (reason.empty() ? "no reason given" : reason));
  }
}

PiiMode::~PiiMode() {
  if (handle_ != nullptr) hooks_.on_pii_destroy(handle_);
}

PiiMode::Scope::Scope(const PiiMode& mode) : hooks_(mode.hooks_) {
  if (hooks_.on_pii_scope_new(mode.handle_, &handle_) != MGW_OK || handle_ == nullptr) {
    handle_ = nullptr;
    throw PluginError("PII mode '" + mode.name_ + "' could not open a request scope");
  }
}

PiiMode::Scope::~Scope() {
  if (handle_ != nullptr) hooks_.on_pii_scope_destroy(handle_);
}

}  // namespace modelgw::plugins
